import { createHmac } from "node:crypto";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUILT_IN_HANDLERS, handlerLookup } from "@/lib/handlers/registry";
import { getEventDetail } from "@/lib/console/event-detail";
import { PROVIDERS } from "@/lib/providers";
import { setupTestDb } from "../db";
import { signGithub, signShopify, TEST_SECRETS, type Delivery } from "../sign";
import { testSource, testSources } from "../sources";
import { drain, query, testSettings } from "../worker/helpers";
import { depsFor } from "./harness";
import { startReceiverServer } from "./http-server";

// Deliveries over real sockets to the node:http adapter `npm start` uses, rows read back from PostgreSQL.
const { db } = setupTestDb({ max: 8 });
const ACME_SECRET = "acme-signing-secret";
// A generic sender that signs the body only and names the event in headers the signature does not cover.
const acme = testSource("acme", "generic", [ACME_SECRET], {
  options: PROVIDERS.generic.parseOptions!({
    signatureHeader: "X-Acme-Signature",
    algorithm: "sha256",
    encoding: "hex",
    eventId: { header: "X-Acme-Event-Id" },
    eventType: { header: "X-Acme-Event-Type" },
  }),
});
let server: Awaited<ReturnType<typeof startReceiverServer>>;
beforeAll(async () => {
  server = await startReceiverServer(depsFor(db, { sources: testSources({}, [acme]) }));
});
afterAll(() => server.close());

async function send(slug: string, d: Delivery): Promise<{ status: number; duplicate: unknown }> {
  const res = await fetch(`${server.url}/api/webhooks/${slug}`, { method: "POST", headers: d.headers, body: d.body });
  const body = (await res.json()) as { duplicate?: unknown };
  return { status: res.status, duplicate: body.duplicate };
}

function signAcme(body: string, eventId: string, type: string): Delivery {
  return {
    body,
    headers: {
      "content-type": "application/json",
      "x-acme-signature": createHmac("sha256", ACME_SECRET).update(body).digest("hex"),
      "x-acme-event-id": eventId,
      "x-acme-event-type": type,
    },
  };
}

const order = JSON.stringify({
  id: 820982911946154500,
  admin_graphql_api_id: "gid://shopify/Order/820982911946154508",
  email: "jon@example.com",
  financial_status: "paid",
  updated_at: "2026-11-01T10:00:00-05:00",
});

const events = (source: string) =>
  query<{ event_id: string; event_type: string; status: string }>(
    db,
    sql`select event_id, event_type, status from webhook_event where source = ${source} order by received_at, event_id`,
  );

describe("the body's hash as a key, where the signature leaves the id or type out", () => {
  it("[receiver] one Shopify body posted under three topics with one X-Shopify-Event-Id is three events, each processed", async () => {
    const answers = [];
    for (const topic of ["orders/create", "orders/paid", "orders/updated"])
      answers.push(await send("shopify", signShopify(order, TEST_SECRETS.shopify, { eventId: "e-action", topic })));
    expect(answers).toEqual([
      { status: 200, duplicate: false },
      { status: 200, duplicate: false },
      { status: 200, duplicate: false },
    ]);
    await drain(db, testSettings());
    expect(await events("shopify")).toEqual([
      { event_id: "e-action:orders/create", event_type: "orders/create", status: "settled" },
      { event_id: "e-action:orders/paid", event_type: "orders/paid", status: "settled" },
      { event_id: "e-action:orders/updated", event_type: "orders/updated", status: "settled" },
    ]);
  });

  it("[receiver] a captured Shopify delivery re-sent on its topic under new ids is a duplicate, recorded on the event it copies", async () => {
    const capture = signShopify(order, TEST_SECRETS.shopify, { eventId: "e-1", topic: "orders/paid" });
    const forged = signShopify(order, TEST_SECRETS.shopify, { eventId: "e-forged", topic: "orders/paid" });
    expect([await send("shopify", capture), await send("shopify", forged)]).toEqual([
      { status: 200, duplicate: false },
      { status: 200, duplicate: true },
    ]);
    expect((await events("shopify")).map((e) => e.event_id)).toEqual(["e-1:orders/paid"]);
    expect(
      await query(db, sql`select event_id, claimed from webhook_delivery where source = 'shopify' order by id`),
    ).toEqual([
      { event_id: "e-1:orders/paid", claimed: true },
      { event_id: "e-1:orders/paid", claimed: false },
    ]);
  });

  it("[receiver] a GitHub body re-sent under a new delivery id and another X-GitHub-Event is still a duplicate", async () => {
    const body = JSON.stringify({ action: "opened", issue: { id: 3, number: 3 }, repository: { id: 9 } });
    const first = await signGithub(body, TEST_SECRETS.github, { delivery: "g-1", event: "issues" });
    const forged = await signGithub(body, TEST_SECRETS.github, { delivery: "g-2", event: "pull_request" });
    expect([await send("github", first), await send("github", forged)]).toEqual([
      { status: 200, duplicate: false },
      { status: 200, duplicate: true },
    ]);
    expect((await events("github")).map((e) => e.event_type)).toEqual(["issues.opened"]);
  });

  it("[receiver] a generic source with id and type in unsigned headers stores one event for a signed body re-sent under new ids and types", async () => {
    const body = JSON.stringify({ invoice: "inv_1", amount: 500 });
    const answers = [];
    for (const [id, type] of [
      ["a-1", "invoice.paid"],
      ["a-2", "invoice.refunded"],
      ["a-3", "invoice.voided"],
    ] as const)
      answers.push(await send("acme", signAcme(body, id, type)));
    expect(answers.map((a) => a.duplicate)).toEqual([false, true, true]);
    await drain(db, testSettings(), { handlers: handlerLookup(BUILT_IN_HANDLERS, () => "generic") });
    expect(await events("acme")).toEqual([{ event_id: "a-1", event_type: "invoice.paid", status: "settled" }]);
    // A new body is a new event, whatever its headers say.
    expect((await send("acme", signAcme(JSON.stringify({ invoice: "inv_2" }), "a-1b", "invoice.paid"))).duplicate).toBe(
      false,
    );
  });

  it("[receiver] a flood of replays of one captured delivery keeps the first and the last few rows, and the event page counts every one", async () => {
    const capture = signShopify(order, TEST_SECRETS.shopify, { eventId: "e-flood", topic: "orders/create" });
    expect((await send("shopify", capture)).duplicate).toBe(false);
    // Half re-sent as captured, half under new ids (a body-key duplicate of the same event), 8 at a time.
    const replays = Array.from({ length: 120 }, (_, n) =>
      n % 2 === 0
        ? capture
        : signShopify(order, TEST_SECRETS.shopify, { eventId: `e-new-${n}`, topic: "orders/create" }),
    );
    for (let n = 0; n < replays.length; n += 8) {
      const answers = await Promise.all(replays.slice(n, n + 8).map((d) => send("shopify", d)));
      expect(answers.every((a) => a.status === 200 && a.duplicate === true)).toBe(true);
    }
    expect((await send("shopify", capture)).duplicate).toBe(true);

    const rows = await query<{ id: string; event_id: string; claimed: boolean }>(
      db,
      sql`select id::text, event_id, claimed from webhook_delivery where source = 'shopify' order by id`,
    );
    expect(new Set(rows.map((r) => r.event_id))).toEqual(new Set(["e-flood:orders/create"]));
    expect(rows.filter((r) => r.claimed)).toHaveLength(1);
    // The claimed row and ten duplicates; two statements that both counted nine may each add one (claim.ts: past
    // the fill by as many as run at once), so at most 7 more with 8 sent at a time.
    expect(rows.length).toBeGreaterThanOrEqual(11);
    expect(rows.length).toBeLessThanOrEqual(11 + 7);

    // Past the fill the oldest rows are rewritten in place: more replays add no row and delete none (a deleted
    // row's index entry was walked by every later claim of the event until a VACUUM).
    for (let n = 0; n < 24; n += 8) await Promise.all(Array.from({ length: 8 }, () => send("shopify", capture)));
    const after = await query<{ id: string; received_at: Date }>(
      db,
      sql`select id::text, received_at from webhook_delivery where source = 'shopify' and not claimed order by id`,
    );
    expect(after.map((r) => r.id)).toEqual(rows.filter((r) => !r.claimed).map((r) => r.id));

    const ops = { id: "u1", email: "ops@example.com", role: "ops" } as const;
    const detail = await getEventDetail(db, ops, { source: "shopify", eventId: "e-flood:orders/create" }, () =>
      Promise.resolve(undefined),
    );
    expect(detail.deliveryCount).toBe(122 + 24);
    expect(detail.deliveries.length).toBe(rows.length);
    expect(detail.deliveries[0]?.claimed).toBe(true);
  });
});
