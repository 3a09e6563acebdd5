import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Actor } from "@/lib/roles";
import { ValidationError } from "@/lib/errors";
import { TEST_MARKER, isTestPayload } from "@/lib/providers/test-marker";
import { listEvents } from "@/lib/console/list-events";
import { PROVIDERS } from "@/lib/providers";
import type { ProviderKind } from "@/lib/providers/types";
import { TYPEFORM_OPTIONS } from "@/lib/samples/generic";
import { sendTestEvent } from "@/lib/sources/test-event";
import { TEST_EVENT_TYPES } from "@/lib/sources/test-samples";
import { stripeSubscriptionEvent } from "@/test/fixtures/stripe";
import { setupTestDb } from "../db";
import { depsFor, post } from "../receiver/harness";
import { startReceiverServer } from "../receiver/http-server";
import { signStripe, TEST_SECRETS } from "../sign";
import { testSource, testSources } from "../sources";
import { drain, query, testSettings } from "../worker/helpers";

const { db } = setupTestDb();
const ops: Actor = { id: "u-ops", email: "ops@example.com", role: "ops" };
const sources = testSources({}, [
  testSource("typeform", "generic", ["typeform-form-secret"], {
    options: PROVIDERS.generic.parseOptions!(TYPEFORM_OPTIONS),
  }),
]);
const slugOf = (kind: ProviderKind) => (kind === "generic" ? "typeform" : kind);

let server: Awaited<ReturnType<typeof startReceiverServer>>;
beforeAll(async () => {
  server = await startReceiverServer(depsFor(db, { sources }));
});
afterAll(async () => server?.close());

const send = (slug: string, type?: string) =>
  sendTestEvent({ db, actor: ops, sources, baseUrl: server.url }, { slug, ...(type ? { type } : {}) });

describe("test events of a chosen type", () => {
  it("[sources] every type each kind offers goes through the signed receiver, is stored as that type and marked a test", async () => {
    for (const [kind, types] of Object.entries(TEST_EVENT_TYPES) as [ProviderKind, readonly string[]][]) {
      for (const type of types) {
        const r = await send(slugOf(kind), type);
        expect({ kind, type, status: r.status, eventType: r.eventType, test: r.test }).toEqual({
          kind,
          type,
          status: 200,
          eventType: type,
          test: true,
        });
        const [row] = await query<{ event_type: string; test: boolean; verified_with: string | null }>(
          db,
          sql`select event_type, test, verified_with from webhook_event
              where source = ${slugOf(kind)} and event_id = ${r.eventId}`,
        );
        // Verified at arrival by the receiver, as any delivery is: the test did not bypass the signature check.
        expect(row).toMatchObject({ event_type: type, test: true, verified_with: expect.any(String) as unknown });
      }
    }
    const audit = await query<{ detail: { eventType: string } }>(
      db,
      sql`select detail from audit_log where action = 'sources.test-event' and result = 'ok'`,
    );
    expect(audit.map((a) => a.detail.eventType)).toContain("customer.subscription.updated");
  });

  it("[sources] a test event is never applied, whatever its type: it settles as ignored and no business row is written", async () => {
    const sent = [];
    for (const type of ["invoice.paid", "customer.subscription.updated", "customer.subscription.deleted"])
      sent.push(await send("stripe", type));
    sent.push(await send("paddle", "subscription.updated"));
    sent.push(await send("shopify", "orders/updated"));
    await drain(db, testSettings());
    const rows = await query<{ event_id: string; status: string; outcome: string }>(
      db,
      sql`select event_id, status, outcome from webhook_event order by event_id`,
    );
    expect(rows).toHaveLength(sent.length);
    for (const r of rows) expect(r).toMatchObject({ status: "settled", outcome: "ignored" });
    const [business] = await query<{
      subscriptions: number;
      orders: number;
      totals: number;
      moves: number;
      versions: number;
    }>(
      db,
      sql`select (select count(*)::int from subscription) as subscriptions,
                 (select count(*)::int from "order") as orders,
                 (select count(*)::int from customer_total) as totals,
                 (select count(*)::int from entity_transition) as moves,
                 (select count(*)::int from entity_version) as versions`,
    );
    expect(business).toEqual({ subscriptions: 0, orders: 0, totals: 0, moves: 0, versions: 0 });
  });

  it("[sources] the same type from the provider (no marker) is applied: only the marker makes a test", async () => {
    const body = JSON.stringify(stripeSubscriptionEvent({ eventId: "evt_real_sub", created: 1_800_000_000 }));
    expect((await post(depsFor(db, { sources }), "stripe", signStripe(body, TEST_SECRETS.stripe))).status).toBe(200);
    await drain(db, testSettings());
    const [row] = await query<{ test: boolean; outcome: string }>(
      db,
      sql`select test, outcome from webhook_event where event_id = 'evt_real_sub'`,
    );
    expect(row).toEqual({ test: false, outcome: "settled" });
    expect(await query(db, sql`select external_id from subscription`)).toHaveLength(1);
  });

  it("[sources] a type the kind's samples do not offer is refused with the list, audited, and nothing is sent", async () => {
    const refused = await send("stripe", "charge.refunded").catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ValidationError);
    expect((refused as Error).message).toBe(
      `a test event for a stripe source is one of ${TEST_EVENT_TYPES.stripe.join(", ")}; not "charge.refunded"`,
    );
    expect(await query(db, sql`select 1 from webhook_event`)).toEqual([]);
    const [audit] = await query<{ result: string }>(
      db,
      sql`select result from audit_log where action = 'sources.test-event'`,
    );
    expect(audit).toEqual({ result: "error" });
  });

  it("[sources] two GitHub tests of one type are two events, not a duplicate of the first body", async () => {
    const a = await send("github", "issues.opened");
    const b = await send("github", "issues.opened");
    expect(a.answer).toMatchObject({ duplicate: false });
    expect(b.answer).toMatchObject({ duplicate: false });
    expect(await query(db, sql`select 1 from webhook_event where source = 'github'`)).toHaveLength(2);
  });

  it("[console] the events list badges tests and filters them in or out", async () => {
    const t = await send("stripe", "invoice.paid");
    const body = JSON.stringify(stripeSubscriptionEvent({ eventId: "evt_real_list", created: 1_800_000_100 }));
    await post(depsFor(db, { sources }), "stripe", signStripe(body, TEST_SECRETS.stripe));
    const ids = async (test?: "only" | "hide") =>
      (await listEvents(db, ops, { filter: test ? { test } : {} })).rows.map((r) => [r.eventId, r.test]);
    expect((await ids()).sort()).toEqual(
      [
        ["evt_real_list", false],
        [t.eventId, true],
      ].sort(),
    );
    expect(await ids("only")).toEqual([[t.eventId, true]]);
    expect(await ids("hide")).toEqual([["evt_real_list", false]]);
  });

  it("[intake] only an object under the marker key at the top level marks a test", () => {
    expect(isTestPayload({ [TEST_MARKER]: { sent_by: "Webhook Ledger", id: "x" } })).toBe(true);
    expect(isTestPayload({ [TEST_MARKER]: true })).toBe(false);
    expect(isTestPayload({ data: { [TEST_MARKER]: {} } })).toBe(false);
    expect(isTestPayload([{ [TEST_MARKER]: {} }])).toBe(false);
    expect(isTestPayload(JSON.parse(`{"__proto__": {"${TEST_MARKER}": {}}}`))).toBe(false);
  });
});
