import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { rowsOf } from "@/db/client";
import type { Actor } from "@/lib/roles";
import { ConflictError, ForbiddenError, ValidationError } from "@/lib/errors";
import { createSourceDirectory } from "@/lib/sources/directory";
import {
  addSourceSecret,
  createSource,
  expireSourceSecret,
  setSourceState,
  type ManageContext,
} from "@/lib/sources/manage";
import { createSecretBox } from "@/lib/sources/secret-box";
import { listSources } from "@/lib/sources/summary";
import { stripeSubscriptionEvent } from "@/test/fixtures/stripe";
import { setupTestDb } from "../db";
import { depsFor, post } from "../receiver/harness";
import { signStripe, TEST_SECRETS } from "../sign";
import { testSource } from "../sources";

const { db } = setupTestDb();
const admin: Actor = { id: "u-admin", email: "admin@example.com", role: "admin" };
const ops: Actor = { id: "u-ops", email: "ops@example.com", role: "ops" };
const box = createSecretBox(randomBytes(32));
const body = (eventId: string) => JSON.stringify(stripeSubscriptionEvent({ eventId }));

function setup(actor: Actor | undefined = admin) {
  const sources = createSourceDirectory({
    declared: [testSource("stripe", "stripe", [TEST_SECRETS.stripe])],
    getDb: async () => db,
    box,
    refreshMs: 60_000,
  });
  const ctx: ManageContext = { db, actor, sources, box };
  return { ctx, sources, deps: depsFor(db, { sources }) };
}

const auditRows = async () =>
  rowsOf<{ action: string; target: string; result: string; detail: Record<string, unknown> }>(
    await db.execute(sql`select action, target, result, detail from audit_log order by id`),
  );

describe("sources managed in the console", () => {
  it("[sources] an admin adds a source: its secret is shown once, stored sealed, and verifies at once", async () => {
    const { ctx, deps } = setup();
    const issued = await createSource(ctx, { slug: "stripe-connect", provider: "stripe", name: "Connect" });
    expect(issued).toMatchObject({ slug: "stripe-connect", generated: true });
    expect(issued.secret).toMatch(/^[0-9a-f]{64}$/);
    const stored = JSON.stringify(rowsOf(await db.execute(sql`select * from webhook_source_secret`)));
    expect(stored).not.toContain(issued.secret);
    expect(stored).toContain(issued.fingerprint);
    expect(JSON.stringify(await auditRows())).not.toContain(issued.secret);
    expect(await auditRows()).toMatchObject([
      { action: "sources.create", target: "source:stripe-connect", result: "ok", detail: { provider: "stripe" } },
    ]);
    expect((await post(deps, "stripe-connect", signStripe(body("evt_c1"), issued.secret))).status).toBe(200);
    const [summary] = (await listSources({ db, actor: ops, sources: ctx.sources })).filter(
      (s) => s.slug === "stripe-connect",
    );
    expect(summary).toMatchObject({
      readOnly: false,
      deliveries24h: 1,
      secrets: [{ fingerprint: issued.fingerprint }],
    });
    expect(JSON.stringify(summary)).not.toContain(issued.secret);
    // A delivery row that replaced older duplicates (lib/intake/claim.ts) counts every arrival it stands for.
    await db.execute(sql`update webhook_delivery set replaced = 4 where source = 'stripe-connect'`);
    const [again] = (await listSources({ db, actor: ops, sources: ctx.sources })).filter(
      (s) => s.slug === "stripe-connect",
    );
    expect(again).toMatchObject({ deliveries24h: 5 });
  });

  it("[sources] rotation: the old secret verifies until the chosen time, then only the new one does", async () => {
    const { ctx, deps } = setup();
    const first = await createSource(ctx, {
      slug: "shop-eu",
      provider: "stripe",
      name: "EU",
      secret: "whsec_pasted_from_the_dashboard_00",
    });
    expect(first).toMatchObject({ generated: false, secret: "whsec_pasted_from_the_dashboard_00" });
    const until = new Date(Date.now() + 3600_000);
    const second = await addSourceSecret(ctx, { slug: "shop-eu", retireOthersAt: until });
    const at = (ms: number) => ({ ...deps, now: () => Math.floor(ms / 1000) });
    const signAt = (secret: string, ms: number, id: string) => signStripe(body(id), secret, Math.floor(ms / 1000));
    const before = until.getTime() - 1000;
    const after = until.getTime() + 1000;
    expect((await post(at(before), "shop-eu", signAt(first.secret, before, "evt_1"))).status).toBe(200);
    expect((await post(at(before), "shop-eu", signAt(second.secret, before, "evt_2"))).status).toBe(200);
    expect((await post(at(after), "shop-eu", signAt(first.secret, after, "evt_3"))).status).toBe(401);
    expect((await post(at(after), "shop-eu", signAt(second.secret, after, "evt_4"))).status).toBe(200);
    // Ending the new one now: it stops verifying at once (the old one still has its hour).
    await expireSourceSecret(ctx, { slug: "shop-eu", secretId: second.secretId });
    expect(await post(deps, "shop-eu", signStripe(body("evt_5"), second.secret))).toMatchObject({
      status: 401,
      body: { error: "signature mismatch" },
    });
    expect((await post(deps, "shop-eu", signStripe(body("evt_6"), first.secret))).status).toBe(200);
    // Ending the old one too leaves none active: every delivery is refused, and said so.
    const [old] = rowsOf<{ id: string }>(
      await db.execute(sql`select id from webhook_source_secret where id <> ${second.secretId}`),
    );
    await expireSourceSecret(ctx, { slug: "shop-eu", secretId: old!.id });
    expect(await post(deps, "shop-eu", signStripe(body("evt_7"), first.secret))).toMatchObject({
      status: 401,
      body: { error: "no secret of this source is active (all expired)" },
    });
    expect((await auditRows()).map((r) => r.action)).toEqual([
      "sources.create",
      "sources.add-secret",
      "sources.expire-secret",
      "sources.expire-secret",
    ]);
  });

  it("[sources] pausing answers 503 and writes nothing; resuming accepts the provider's retry", async () => {
    const { ctx, deps } = setup();
    const { secret } = await createSource(ctx, { slug: "stripe-b", provider: "stripe", name: "B" });
    await setSourceState(ctx, { slug: "stripe-b", state: "paused" });
    const delivery = signStripe(body("evt_p"), secret);
    expect((await post(deps, "stripe-b", delivery)).status).toBe(503);
    expect(rowsOf(await db.execute(sql`select 1 from webhook_event`))).toEqual([]);
    await setSourceState(ctx, { slug: "stripe-b", state: "active" });
    expect((await post(deps, "stripe-b", delivery)).status).toBe(200);
    await setSourceState(ctx, { slug: "stripe-b", state: "disabled" });
    expect((await post(deps, "stripe-b", delivery)).status).toBe(404);
  });

  it("[sources] a declared source is read-only in the console, and its slug cannot be taken", async () => {
    const { ctx } = setup();
    await expect(setSourceState(ctx, { slug: "stripe", state: "paused" })).rejects.toThrow(
      /declared by the environment \(STRIPE_WEBHOOK_SECRET\): change it there/,
    );
    await expect(createSource(ctx, { slug: "stripe", provider: "stripe", name: "again" })).rejects.toBeInstanceOf(
      ConflictError,
    );
    expect((await auditRows()).map((r) => [r.action, r.result])).toEqual([
      ["sources.set-state", "error"],
      ["sources.create", "error"],
    ]);
  });

  it("[sources] only admins manage sources; a refusal is audited and changes nothing", async () => {
    const { ctx } = setup(ops);
    await expect(createSource(ctx, { slug: "nope", provider: "github", name: "x" })).rejects.toBeInstanceOf(
      ForbiddenError,
    );
    expect(rowsOf(await db.execute(sql`select 1 from webhook_source`))).toEqual([]);
    expect(await auditRows()).toMatchObject([{ action: "sources.create", result: "refused" }]);
  });

  it("[sources] bad input names the field: slug, provider, generic options", async () => {
    const { ctx } = setup();
    await expect(createSource(ctx, { slug: "Has Spaces", provider: "stripe", name: "x" })).rejects.toThrow(
      /lowercase letters/,
    );
    await expect(createSource(ctx, { slug: "ok", provider: "nope" as "stripe", name: "x" })).rejects.toThrow(
      /provider kind/,
    );
    const err = await createSource(ctx, { slug: "gen", provider: "generic", name: "x", options: {} }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as Error).message).toMatch(/^options: /);
  });

  it("[sources] without LEDGER_SECRET_KEY no secret can be stored, and the message says what to set", async () => {
    const { ctx } = setup();
    await expect(
      createSource({ ...ctx, box: undefined }, { slug: "nokey", provider: "stripe", name: "x" }),
    ).rejects.toThrow(/LEDGER_SECRET_KEY is not set/);
    expect(rowsOf(await db.execute(sql`select 1 from webhook_source`))).toEqual([]);
  });

  it("[sources] another instance sees a new source on its first miss, without waiting for the refresh", async () => {
    const { ctx } = setup();
    const other = setup(); // its own directory, as another process would have
    expect(await other.sources.find("late")).toBeUndefined();
    const { secret } = await createSource(ctx, { slug: "late", provider: "stripe", name: "late" });
    await new Promise((r) => setTimeout(r, 1100)); // past the miss interval: a miss may read again
    expect((await post(other.deps, "late", signStripe(body("evt_late"), secret))).status).toBe(200);
  });
});
