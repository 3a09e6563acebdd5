import { createHash, randomBytes, randomUUID } from "node:crypto";
import { count, eq } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "@/db/client";
import { authUser, authVerification } from "@/db/schema";
import { writeAudit } from "@/lib/audit/write";
import { safeEqualStrings } from "@/lib/providers/crypto";
import { ConflictError } from "@/lib/errors";
import { CreateUserInput, insertUser, lockUserChanges } from "./users";

const SETUP_IDENTIFIER = "first-admin-setup";
const SETUP_HOURS = 24;
const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

export type BootstrapResult =
  { kind: "exists" } | { kind: "created"; email: string } | { kind: "setup-link"; url: string };

async function userCount(db: Db): Promise<number> {
  const [row] = await db.select({ n: count() }).from(authUser);
  return row?.n ?? 0;
}

/**
 * On an empty user table: create the admin from ADMIN_EMAIL/ADMIN_PASSWORD, or else mint a one-time setup
 * link (valid 24 h, only its hash stored). There is never a built-in default password.
 */
export async function bootstrapFirstAdmin(
  db: Db,
  opts: { email?: string; password?: string; baseURL: string },
): Promise<BootstrapResult> {
  if ((await userCount(db)) > 0) return { kind: "exists" };
  if (opts.email && opts.password) {
    const input = CreateUserInput.parse({ email: opts.email, password: opts.password, role: "admin", name: "Admin" });
    return db.transaction(async (tx) => {
      await lockUserChanges(tx);
      if ((await userCount(tx)) > 0) return { kind: "exists" } as const;
      await insertUser(tx, input);
      await writeAudit(
        tx,
        { id: null, email: "system" },
        { action: "users.bootstrap-admin", target: `user:${input.email}`, result: "ok" },
      );
      return { kind: "created", email: input.email } as const;
    });
  }
  const token = randomBytes(24).toString("base64url");
  await db.transaction(async (tx) => {
    await tx.delete(authVerification).where(eq(authVerification.identifier, SETUP_IDENTIFIER));
    await tx.insert(authVerification).values({
      id: randomUUID(),
      identifier: SETUP_IDENTIFIER,
      value: hashToken(token),
      expiresAt: new Date(Date.now() + SETUP_HOURS * 3600_000),
    });
  });
  return { kind: "setup-link", url: `${opts.baseURL.replace(/\/$/, "")}/setup?token=${token}` };
}

/**
 * The first admin at start-up, and the line that says what happened: created, and from where (the quick
 * start's demo file hands its admin over as ADMIN_EMAIL/ADMIN_PASSWORD, so the values tell them apart),
 * or the setup link to open. Nothing to say once a user exists.
 */
export async function bootstrapAtStartup(
  db: Db,
  opts: {
    email?: string;
    password?: string;
    baseURL: string;
    /** The quick start's demo admin and the file it was generated into. */
    demo?: { adminEmail: string; adminPassword: string; file: string };
  },
): Promise<string | undefined> {
  const first = await bootstrapFirstAdmin(db, opts);
  if (first.kind === "setup-link") return `no users yet: create the first admin at ${first.url} (valid 24 h, once)`;
  if (first.kind === "exists") return undefined;
  const demo = opts.demo;
  const fromDemo = demo && demo.adminEmail === opts.email && demo.adminPassword === opts.password;
  const from = fromDemo ? `the demo file ${demo.file}` : "ADMIN_EMAIL and ADMIN_PASSWORD";
  return `created the first admin ${first.email} from ${from}`;
}

/**
 * What /setup can truthfully say. Once any user exists there is never a setup link again (a restart
 * prints none), so that state points to sign-in; before that, a link is minted at every start-up.
 */
export type SetupState = "admin-exists" | "no-link" | "link-invalid" | "link-valid";

export async function getSetupState(db: Db, token: string | undefined): Promise<SetupState> {
  if ((await userCount(db)) > 0) return "admin-exists";
  if (!token) return "no-link";
  return (await isSetupTokenValid(db, token)) ? "link-valid" : "link-invalid";
}

export async function isSetupTokenValid(db: Db, token: string): Promise<boolean> {
  if ((await userCount(db)) > 0) return false;
  const [row] = await db.select().from(authVerification).where(eq(authVerification.identifier, SETUP_IDENTIFIER));
  return !!row && row.expiresAt > new Date() && safeEqualStrings(row.value, hashToken(token));
}

export const CompleteSetupInput = z.object({ token: z.string().min(1), email: z.string(), password: z.string() });

/** Creates the first admin through the setup link; the link dies with it. */
export async function completeSetup(db: Db, input: z.input<typeof CompleteSetupInput>): Promise<{ email: string }> {
  const { token, email, password } = CompleteSetupInput.parse(input);
  const user = CreateUserInput.parse({ email, password, role: "admin", name: "Admin" });
  return db.transaction(async (tx) => {
    await lockUserChanges(tx);
    if ((await userCount(tx)) > 0)
      throw new ConflictError("An admin already exists, so setup links no longer work. Sign in instead.");
    if (!(await isSetupTokenValid(tx, token)))
      throw new ConflictError(
        "This setup link is invalid or expired. Restart the app to print a new one in its log, or set ADMIN_EMAIL and ADMIN_PASSWORD.",
      );
    await insertUser(tx, user);
    await tx.delete(authVerification).where(eq(authVerification.identifier, SETUP_IDENTIFIER));
    await writeAudit(
      tx,
      { id: null, email: user.email },
      { action: "users.setup-admin", target: `user:${user.email}`, result: "ok" },
    );
    return { email: user.email };
  });
}
