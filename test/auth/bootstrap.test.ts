import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { rowsOf } from "@/db/client";
import {
  bootstrapAtStartup,
  bootstrapFirstAdmin,
  completeSetup,
  getSetupState,
  isSetupTokenValid,
} from "@/lib/auth/bootstrap";
import { resolveAuthSecret } from "@/lib/auth/server";
import { setupTestDb } from "../db";
import { signIn, testAuth } from "./helpers";

const { db } = setupTestDb();
const baseURL = "http://127.0.0.1:3999";

describe("the first admin", () => {
  it("[bootstrap] ADMIN_EMAIL/ADMIN_PASSWORD create the first admin once, who can sign in", async () => {
    expect(
      await bootstrapFirstAdmin(db, { email: "Root@Example.com", password: "first admin password", baseURL }),
    ).toEqual({ kind: "created", email: "root@example.com" });
    expect(
      await bootstrapFirstAdmin(db, { email: "other@example.com", password: "first admin password", baseURL }),
    ).toEqual({ kind: "exists" });
    expect(rowsOf(await db.execute(sql`select email, role from auth_user`))).toEqual([
      { email: "root@example.com", role: "admin" },
    ]);
    expect((await signIn(testAuth(db), "root@example.com", "first admin password")).status).toBe(200);
  });

  it("[bootstrap] with no variables an empty database gets a one-time setup link, stored only as a hash", async () => {
    const result = await bootstrapFirstAdmin(db, { baseURL });
    expect(result.kind).toBe("setup-link");
    const token = new URL((result as { url: string }).url).searchParams.get("token")!;
    expect(token.length).toBeGreaterThanOrEqual(32);
    expect(JSON.stringify(rowsOf(await db.execute(sql`select value from auth_verification`)))).not.toContain(token);
    expect(await isSetupTokenValid(db, token)).toBe(true);
    expect(await isSetupTokenValid(db, `${token}x`)).toBe(false);
    await completeSetup(db, { token, email: "first@example.com", password: "a long admin password" });
    expect(rowsOf(await db.execute(sql`select email, role from auth_user`))).toEqual([
      { email: "first@example.com", role: "admin" },
    ]);
    await expect(
      completeSetup(db, { token, email: "second@example.com", password: "a long admin password" }),
    ).rejects.toThrow("An admin already exists, so setup links no longer work. Sign in instead.");
    expect(await bootstrapFirstAdmin(db, { baseURL })).toEqual({ kind: "exists" });
  });

  it("[bootstrap] a restart prints a new link and the old one stops working; an expired link is refused", async () => {
    const first = await bootstrapFirstAdmin(db, { baseURL });
    const second = await bootstrapFirstAdmin(db, { baseURL });
    const token = (r: typeof first) => new URL((r as { url: string }).url).searchParams.get("token")!;
    expect(await isSetupTokenValid(db, token(first))).toBe(false);
    expect(await isSetupTokenValid(db, token(second))).toBe(true);
    await db.execute(sql`update auth_verification set expires_at = now() - interval '1 minute'`);
    await expect(
      completeSetup(db, { token: token(second), email: "late@example.com", password: "a long admin password" }),
    ).rejects.toThrow("This setup link is invalid or expired. Restart the app to print a new one in its log");
  });

  it("[bootstrap] /setup says what is true in each state: no link yet, a bad link, a good one, and an admin exists", async () => {
    expect(await getSetupState(db, undefined)).toBe("no-link");
    const link = await bootstrapFirstAdmin(db, { baseURL });
    const token = new URL((link as { url: string }).url).searchParams.get("token")!;
    expect(await getSetupState(db, "not-the-token")).toBe("link-invalid");
    expect(await getSetupState(db, token)).toBe("link-valid");
    await completeSetup(db, { token, email: "first@example.com", password: "a long admin password" });
    // Used: from now on every address of /setup points to sign-in, since no start-up prints a link again.
    expect(await getSetupState(db, token)).toBe("admin-exists");
    expect(await getSetupState(db, undefined)).toBe("admin-exists");
    expect(await bootstrapFirstAdmin(db, { baseURL })).toEqual({ kind: "exists" });
  });

  it("[bootstrap] start-up says the first admin came from the demo file when the quick start supplied it", async () => {
    const demo = { adminEmail: "admin@demo.local", adminPassword: "AbCdEf-GhIjKl-MnOpQr", file: ".data/demo.json" };
    const line = await bootstrapAtStartup(db, { email: demo.adminEmail, password: demo.adminPassword, baseURL, demo });
    expect(line).toBe("created the first admin admin@demo.local from the demo file .data/demo.json");
    expect(line).not.toContain("ADMIN_EMAIL");
    expect(await bootstrapAtStartup(db, { email: demo.adminEmail, password: demo.adminPassword, baseURL, demo })).toBe(
      undefined,
    );
  });

  it("[bootstrap] start-up names ADMIN_EMAIL and ADMIN_PASSWORD when they, not the demo file, made the first admin", async () => {
    const demo = { adminEmail: "admin@demo.local", adminPassword: "AbCdEf-GhIjKl-MnOpQr", file: ".data/demo.json" };
    expect(
      await bootstrapAtStartup(db, { email: "root@example.com", password: "first admin password", baseURL, demo }),
    ).toBe("created the first admin root@example.com from ADMIN_EMAIL and ADMIN_PASSWORD");
  });

  it("[bootstrap] start-up with neither prints the one-time setup link", async () => {
    expect(await bootstrapAtStartup(db, { baseURL })).toMatch(
      /^no users yet: create the first admin at http:\/\/127\.0\.0\.1:3999\/setup\?token=\S+ \(valid 24 h, once\)$/,
    );
  });

  it("[bootstrap] with no BETTER_AUTH_SECRET a random secret is generated once and reused", async () => {
    const a = await resolveAuthSecret(db, undefined);
    const b = await resolveAuthSecret(db, undefined);
    expect(a).toBe(b);
    expect(a.length).toBeGreaterThanOrEqual(40);
    expect(await resolveAuthSecret(db, "configured-secret-configured-secret-123")).toBe(
      "configured-secret-configured-secret-123",
    );
  });
});
