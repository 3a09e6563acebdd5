import { describe, expect, it } from "vitest";
import { createAuth } from "@/lib/auth/server";
import { setupTestDb } from "../db";

// lib/auth/server.ts: useSecureCookies follows the public URL (APP_URL → baseURL). Read-only check here.
const { db } = setupTestDb();
const config = (baseURL: string) => ({ baseURL, secret: "s".repeat(32), signInPerMinute: 5, sessionHours: 12 });

describe("session cookie attributes", () => {
  it("[security] behind an https APP_URL the session cookie is Secure, __Secure-prefixed, HttpOnly and SameSite=Lax", async () => {
    const ctx = await createAuth(db, config("https://ledger.example.com")).$context;
    const { name, attributes } = ctx.authCookies.sessionToken;
    expect(name).toBe("__Secure-ledger.session_token");
    expect(attributes).toMatchObject({ secure: true, httpOnly: true, sameSite: "lax" });
  });

  it("[security] on plain http (local use) it cannot be Secure, and is still HttpOnly", async () => {
    const ctx = await createAuth(db, config("http://127.0.0.1:3000")).$context;
    expect(ctx.authCookies.sessionToken.name).toBe("ledger.session_token");
    expect(ctx.authCookies.sessionToken.attributes).toMatchObject({ secure: false, httpOnly: true });
  });
});
