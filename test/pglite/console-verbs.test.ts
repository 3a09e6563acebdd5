import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectPglite, rowsOf, type DbHandle } from "@/db/client";
import { migratePglite } from "@/db/migrate";
import type { Actor } from "@/lib/roles";
import { checkReadiness } from "@/lib/health";
import { createSourceDirectory } from "@/lib/sources/directory";
import { addSourceSecret, createSource, expireSourceSecret, setSourceState } from "@/lib/sources/manage";
import { createSecretBox } from "@/lib/sources/secret-box";
import { testSource } from "../sources";
import { TEST_SECRETS } from "../sign";

// PGlite has one connection: a verb that reads through the pool while its own transaction is open waits on
// itself forever. Each verb here must finish on it, well inside this bound.
const BOUND_MS = 10_000;
const within = <T>(p: Promise<T>, what: string) =>
  Promise.race([
    p,
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`${what} did not finish in ${BOUND_MS} ms on PGlite`)), BOUND_MS).unref(),
    ),
  ]);

let handle: DbHandle;
beforeAll(async () => {
  handle = await connectPglite("memory://");
  await migratePglite(handle);
}, 180_000);
afterAll(async () => handle?.close());

const admin: Actor = { id: "u-admin", email: "admin@example.com", role: "admin" };

describe("console verbs on the embedded database (one connection)", () => {
  it("[pglite] adding a source, rotating its secret, expiring one and pausing it each finish and are audited", async () => {
    const { db } = handle;
    const box = createSecretBox(randomBytes(32));
    const sources = createSourceDirectory({
      declared: [testSource("stripe", "stripe", [TEST_SECRETS.stripe])],
      getDb: async () => db,
      box,
    });
    const ctx = { db, actor: admin, sources, box };
    const issued = await within(
      createSource(ctx, { slug: "stripe-eu", provider: "stripe", name: "Stripe EU" }),
      "createSource",
    );
    expect(issued).toMatchObject({ slug: "stripe-eu", generated: true });
    const rotated = await within(addSourceSecret(ctx, { slug: "stripe-eu" }), "addSourceSecret");
    await within(expireSourceSecret(ctx, { slug: "stripe-eu", secretId: issued.secretId }), "expireSourceSecret");
    await within(setSourceState(ctx, { slug: "stripe-eu", state: "paused" }), "setSourceState");
    expect((await sources.find("stripe-eu"))?.secrets.map((s) => s.id)).toEqual([issued.secretId, rotated.secretId]);
    await expect(
      within(createSource(ctx, { slug: "stripe-eu", provider: "stripe", name: "Again" }), "createSource (taken)"),
    ).rejects.toThrow(/already exists/);
    await expect(
      within(createSource(ctx, { slug: "stripe", provider: "stripe", name: "Declared" }), "createSource (declared)"),
    ).rejects.toThrow(/already exists/);
    const audit = rowsOf<{ action: string; result: string }>(
      await db.execute(sql`select action, result from audit_log order by id`),
    );
    expect(audit).toEqual([
      { action: "sources.create", result: "ok" },
      { action: "sources.add-secret", result: "ok" },
      { action: "sources.expire-secret", result: "ok" },
      { action: "sources.set-state", result: "ok" },
      { action: "sources.create", result: "error" },
      { action: "sources.create", result: "error" },
    ]);
  });

  it("[pglite] a transaction holding the one connection is named by readiness instead of a bare timeout", async () => {
    const { db } = handle;
    const ready = await db.transaction(async (tx) => {
      await tx.execute(sql`select 1`);
      // Readiness reads through the pool: on PGlite it waits behind this transaction.
      return checkReadiness({ getDb: async () => db, timeoutMs: 1500, migrationsFolder: "drizzle" });
    });
    expect(ready.ok).toBe(false);
    expect(ready.checks.database.detail).toMatch(
      /^no answer within 1500 ms: the embedded database's one connection has been held by one transaction for \d+ s$/,
    );
  });
});
