import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { sql } from "drizzle-orm";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Actor } from "@/lib/roles";
import { rowsOf } from "@/db/client";
import { ConflictError, ForbiddenError } from "@/lib/errors";
import { handlerLookup } from "@/lib/handlers/registry";
import { providerApiFromEnv } from "@/lib/handlers/provider-api";
import { applyTiedEvent, listOpenTies } from "@/lib/console/ties";
import { shopifyOrder } from "@/lib/samples/shopify";
import { setupTestDb } from "../db";
import { claim, drain, query, testSettings } from "./helpers";

const { db } = setupTestDb();

/** The fields of a Stripe subscription the tests move; the object is built from them as Stripe sends it. */
interface SubState {
  status: string;
  price: string;
  quantity: number;
  cancelAtPeriodEnd: boolean;
}

const objectOf = (id: string, s: SubState) => ({
  id,
  object: "subscription",
  customer: "cus_TieTest0001",
  status: s.status,
  cancel_at_period_end: s.cancelAtPeriodEnd,
  quantity: s.quantity,
  items: { object: "list", data: [{ id: "si_TieTest0001", price: { id: s.price }, quantity: s.quantity }] },
});

/** A customer.subscription.* event; an update carries previous_attributes for the fields it changed. */
function eventOf(eventId: string, subId: string, created: number, s: SubState, prev?: SubState) {
  const after = objectOf(subId, s);
  const data: Record<string, unknown> = { object: after };
  if (prev) {
    const before = objectOf(subId, prev) as Record<string, unknown>;
    const changed = Object.keys(after).filter(
      (k) => JSON.stringify(before[k]) !== JSON.stringify((after as Record<string, unknown>)[k]),
    );
    data.previous_attributes = Object.fromEntries(changed.map((k) => [k, before[k]]));
  }
  return {
    id: eventId,
    object: "event",
    api_version: "2024-06-20",
    created,
    type: prev ? "customer.subscription.updated" : "customer.subscription.created",
    data,
  };
}

const subscription = async (id: string) =>
  (
    await query<{ status: string; plan: string }>(
      db,
      sql`select status, plan from subscription where external_id = ${id}`,
    )
  )[0];
const timeline = async (id: string) =>
  query<{ event_id: string; outcome: string; resolution: string | null; note: string | null }>(
    db,
    sql`select event_id, outcome, resolution, note from entity_transition where entity_id = ${id} order by id`,
  );

/** A fake Stripe API on loopback: GET /v1/subscriptions/{id} answers the state set for that id. */
let api: Server;
let apiBase = "";
const apiState = new Map<string, unknown>();
let apiDown = false;
beforeAll(async () => {
  api = createServer((req, res) => {
    const m = /^\/v1\/subscriptions\/([^/?]+)$/.exec(req.url ?? "");
    const body = m ? apiState.get(decodeURIComponent(m[1]!)) : undefined;
    if (apiDown || req.headers.authorization !== "Bearer sk_test_ties" || !body) {
      res.writeHead(apiDown ? 500 : 404).end("{}");
      return;
    }
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
  });
  await new Promise<void>((r) => api.listen(0, "127.0.0.1", r));
  apiBase = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => api.close(() => r())));

const withApi = () =>
  testSettings({
    providerApi: providerApiFromEnv(
      { STRIPE_API_BASE: apiBase, STRIPE_API_KEY: "sk_test_ties", PADDLE_API_BASE: apiBase, PADDLE_API_KEY: undefined },
      (slug) => (slug === "stripe" ? "stripe" : undefined),
    ),
  });

const A: SubState = { status: "trialing", price: "price_basic", quantity: 1, cancelAtPeriodEnd: false };
const B: SubState = { ...A, status: "active" };
const C: SubState = { ...B, price: "price_pro" };

describe("ties: equal versions are ordered, not dropped", () => {
  it("[ties] created then updated in one second, delivered updated first: the chain orders them, the update wins", async () => {
    await claim(db, "stripe", eventOf("evt_upd", "sub_T1", 1000, B, A));
    await drain(db);
    await claim(db, "stripe", eventOf("evt_new", "sub_T1", 1000, A));
    expect((await drain(db)).map((r) => r.outcome)).toEqual(["stale"]);
    expect(await subscription("sub_T1")).toMatchObject({ status: "active" });
    expect(await timeline("sub_T1")).toMatchObject([
      { event_id: "evt_upd", outcome: "applied", resolution: null },
      { event_id: "evt_new", outcome: "stale", resolution: "chain" },
    ]);
  });

  it("[ties] the same pair in order: the update's previous values are the created state, so it applies", async () => {
    await claim(db, "stripe", eventOf("evt_new2", "sub_T2", 1000, A));
    await drain(db);
    await claim(db, "stripe", eventOf("evt_upd2", "sub_T2", 1000, B, A));
    expect((await drain(db)).map((r) => r.outcome)).toEqual(["settled"]);
    expect(await subscription("sub_T2")).toMatchObject({ status: "active" });
    const [, t] = await timeline("sub_T2");
    expect(t).toMatchObject({ outcome: "applied", resolution: "chain" });
    expect(t?.note).toMatch(/resolved by chain evidence/);
  });

  it("[ties] no evidence between the two: the provider's API decides, and the timeline says so", async () => {
    apiState.set("sub_T3", objectOf("sub_T3", C));
    await claim(db, "stripe", eventOf("evt_c", "sub_T3", 1000, C, B));
    await drain(db, withApi());
    await claim(db, "stripe", eventOf("evt_a", "sub_T3", 1000, A)); // created, a second-mate of C, arriving late
    expect((await drain(db, withApi())).map((r) => r.outcome)).toEqual(["stale"]);
    const [, t] = await timeline("sub_T3");
    expect(t).toMatchObject({ outcome: "stale", resolution: "provider-api" });
    expect(t?.note).toMatch(/resolved from the provider's API: that event's state is the current one/);
    expect(await subscription("sub_T3")).toMatchObject({ plan: "price_pro", status: "active" });
  });

  it("[ties] the API's state newer than both events is applied as the provider's", async () => {
    const D: SubState = { ...C, quantity: 7 };
    apiState.set("sub_T4", objectOf("sub_T4", D));
    await claim(db, "stripe", eventOf("evt_b4", "sub_T4", 1000, B, A));
    await drain(db, withApi());
    await claim(db, "stripe", eventOf("evt_c4", "sub_T4", 1000, C, { ...B, quantity: 3 })); // no chain to B
    expect((await drain(db, withApi())).map((r) => r.outcome)).toEqual(["settled"]);
    const [, t] = await timeline("sub_T4");
    expect(t).toMatchObject({ outcome: "applied", resolution: "provider-api" });
    expect(t?.note).toMatch(/applied the object's current state/);
  });

  it("[ties] the API down: the tie is recorded for a person, saying the API did not answer", async () => {
    apiDown = true;
    try {
      await claim(db, "stripe", eventOf("evt_b5", "sub_T5", 1000, B, A));
      await drain(db, withApi());
      await claim(db, "stripe", eventOf("evt_c5", "sub_T5", 1000, C, { ...B, quantity: 3 }));
      expect((await drain(db, withApi())).map((r) => r.outcome)).toEqual(["tie"]);
      const [, t] = await timeline("sub_T5");
      expect(t?.note).toMatch(/the provider's API did not answer \(.*500/);
      expect(await subscription("sub_T5")).toMatchObject({ status: "active", plan: "price_basic" });
    } finally {
      apiDown = false;
    }
  });
});

describe("a tie left for a person", () => {
  const ops: Actor = { id: "u-ops", email: "ops@example.com", role: "ops" };
  const support: Actor = { id: "u-sup", email: "support@example.com", role: "support" };
  const handlers = handlerLookup();

  async function openTie(sub: string) {
    await claim(db, "stripe", eventOf(`evt_${sub}_kept`, sub, 1000, B, A));
    await drain(db);
    await claim(db, "stripe", eventOf(`evt_${sub}_tied`, sub, 1000, C, { ...B, quantity: 3 }));
    expect((await drain(db)).map((r) => r.outcome)).toEqual(["tie"]);
  }

  it("[ties] is listed for the overview, and ops can apply the other event: audited, on the timeline, then closed", async () => {
    await openTie("sub_H1");
    expect(await listOpenTies(db, support)).toMatchObject([
      { entityId: "sub_H1", eventId: "evt_sub_H1_tied", keptEventId: "evt_sub_H1_kept", version: 1000 },
    ]);
    const input = { source: "stripe", eventId: "evt_sub_H1_tied" };
    await expect(applyTiedEvent({ db, actor: support, input, handlers })).rejects.toBeInstanceOf(ForbiddenError);
    expect(await applyTiedEvent({ db, actor: ops, input, handlers })).toEqual({
      applied: true,
      replacedEventId: "evt_sub_H1_kept",
    });
    expect(await subscription("sub_H1")).toMatchObject({ plan: "price_pro" });
    const [row] = rowsOf(await db.execute(sql`select outcome from webhook_event where event_id = 'evt_sub_H1_tied'`));
    expect(row).toMatchObject({ outcome: "settled" });
    const last = (await timeline("sub_H1")).at(-1);
    expect(last).toMatchObject({ event_id: "evt_sub_H1_tied", outcome: "applied", resolution: "by-hand" });
    expect(last?.note).toBe(
      "applied by hand by ops@example.com: the tie with event evt_sub_H1_kept decided for this one",
    );
    expect(await listOpenTies(db, support)).toEqual([]);
    await expect(applyTiedEvent({ db, actor: ops, input, handlers })).rejects.toThrow(/not an undecided tie/);
    expect(
      await query(db, sql`select action, result from audit_log where action = 'events.apply-tie' order by id`),
    ).toEqual([
      { action: "events.apply-tie", result: "refused" },
      { action: "events.apply-tie", result: "ok" },
      { action: "events.apply-tie", result: "error" },
    ]);
  });

  it("[ties] applying a tie after the entity moved on is refused: the event is older now", async () => {
    await openTie("sub_H2");
    await claim(db, "stripe", eventOf("evt_sub_H2_newer", "sub_H2", 1001, { ...C, quantity: 9 }, C));
    await drain(db);
    const err = await applyTiedEvent({
      db,
      actor: ops,
      input: { source: "stripe", eventId: "evt_sub_H2_tied" },
      handlers,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConflictError);
    expect((err as Error).message).toMatch(/moved on to version 1001 since the tie/);
  });
});

describe("the timeline tells the truth under concurrency", () => {
  it("[ties] a worker that waited on another's first insert records that worker's version and event as prior", async () => {
    // Another worker is mid-transaction having applied version 2000 of the entity (its row lock held).
    let inserted!: () => void;
    const holding = new Promise<void>((r) => (inserted = r));
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const other = db.transaction(async (tx) => {
      await tx.execute(sql`insert into entity_version (source, entity_type, entity_id, version, event_id)
                           values ('stripe', 'subscription', 'sub_C1', 2000, 'evt_other')`);
      inserted();
      await released;
    });
    let draining: ReturnType<typeof drain> | undefined;
    try {
      await Promise.race([holding, other]);
      await claim(db, "stripe", eventOf("evt_mine", "sub_C1", 1500, B, A));
      draining = drain(db);
      // The worker's own insert waits on that uncommitted row; only then does the other transaction commit.
      await expect
        .poll(
          async () =>
            (
              await query<{ n: number }>(
                db,
                sql`select count(*)::int as n from pg_stat_activity
                    where datname = current_database() and wait_event_type = 'Lock'
                      and query like '%insert into entity_version%' and pid <> pg_backend_pid()`,
              )
            )[0]?.n,
          { timeout: 5000, interval: 20 },
        )
        .toBe(1);
    } finally {
      release();
    }
    const [processed] = await Promise.all([draining!, other]);
    expect(processed.map((p) => p.outcome)).toEqual(["stale"]);
    const [t] = await query<Record<string, unknown>>(
      db,
      sql`select outcome, note, prior_version::int as prior_version, prior_event_id from entity_transition`,
    );
    expect(t).toEqual({
      outcome: "stale",
      note: "older: version 1500 < applied version 2000 (event evt_other)",
      prior_version: 2000,
      prior_event_id: "evt_other",
    });
  });
});

describe("property: the last state the provider produced wins", () => {
  const STATUSES = ["trialing", "active", "past_due", "unpaid", "canceled"];
  const PRICES = ["price_a", "price_b", "price_c"];
  const change = fc.record({
    field: fc.constantFrom("status" as const, "price" as const, "quantity" as const, "cancelAtPeriodEnd" as const),
    pick: fc.nat(),
    sameSecond: fc.boolean(),
  });
  const scenario: fc.Arbitrary<Scenario> = fc.record({
    changes: fc.array(change, { minLength: 1, maxLength: 6 }),
    order: fc.array(fc.nat(), { minLength: 14, maxLength: 14 }),
    duplicates: fc.array(fc.nat({ max: 6 }), { maxLength: 3 }),
    drainAfter: fc.array(fc.boolean(), { minLength: 14, maxLength: 14 }),
  });

  interface Change {
    field: "status" | "price" | "quantity" | "cancelAtPeriodEnd";
    pick: number;
    sameSecond: boolean;
  }
  interface Scenario {
    changes: Change[];
    order: number[];
    duplicates: number[];
    drainAfter: boolean[];
  }

  /** A history of distinct states (a full-state revert within a second is left to the API: docs/handlers.md). */
  function history(changes: Change[]) {
    const states: SubState[] = [A];
    const versions = [1000];
    const seen = new Set([JSON.stringify(A)]);
    for (const [i, c] of changes.entries()) {
      const prev = states[states.length - 1]!;
      let next: SubState =
        c.field === "status"
          ? { ...prev, status: STATUSES[c.pick % STATUSES.length]! }
          : c.field === "price"
            ? { ...prev, price: PRICES[c.pick % PRICES.length]! }
            : c.field === "quantity"
              ? { ...prev, quantity: 1 + (c.pick % 4) }
              : { ...prev, cancelAtPeriodEnd: !prev.cancelAtPeriodEnd };
      if (seen.has(JSON.stringify(next))) next = { ...next, quantity: 100 + i };
      seen.add(JSON.stringify(next));
      states.push(next);
      versions.push(versions[versions.length - 1]! + (c.sameSecond ? 0 : 1));
    }
    return { states, versions };
  }

  let run = 0;
  async function play(s: Scenario, api: boolean) {
    const subId = `sub_P${++run}`;
    const { states, versions } = history(s.changes);
    const events = states.map((st, i) =>
      eventOf(`evt_${subId}_${i}`, subId, versions[i]!, st, i === 0 ? undefined : states[i - 1]),
    );
    if (api) apiState.set(subId, objectOf(subId, states[states.length - 1]!));
    const order = events.map((e, i) => ({ e, key: s.order[i] ?? 0 })).sort((a, b) => a.key - b.key);
    const deliveries = [...order.map((o) => o.e), ...s.duplicates.map((d) => events[d % events.length]!)];
    const settings = api ? withApi() : testSettings();
    for (const [i, e] of deliveries.entries()) {
      await claim(db, "stripe", e);
      if (s.drainAfter[i % s.drainAfter.length]) await drain(db, settings);
    }
    await drain(db, settings);
    const last = states[states.length - 1]!;
    const ties = (await timeline(subId)).filter((t) => t.outcome === "tie");
    return { final: await subscription(subId), last, ties };
  }

  it("[ties] whenever the chain decides every tie, the final state is the provider's last", async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const { final, last, ties } = await play(s, false);
        if (ties.length === 0) expect(final).toEqual({ status: last.status, plan: last.price });
      }),
      { numRuns: 60 },
    );
  });

  it("[ties] with the provider's API on loopback, always, and no tie is left for a person", async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const { final, last, ties } = await play(s, true);
        expect(ties).toEqual([]);
        expect(final).toEqual({ status: last.status, plan: last.price });
      }),
      { numRuns: 60 },
    );
  });
});

describe("ties: Shopify's X-Shopify-Triggered-At orders what updated_at (seconds) cannot", () => {
  const UPDATED = "2024-04-12T06:18:49-04:00";
  const orderEvent = (eventId: string, financialStatus: string, triggeredAt?: string) => ({
    payload: shopifyOrder({ id: 820982911946154, updatedAt: UPDATED, financialStatus }),
    headers: {
      "x-shopify-topic": "orders/updated",
      "x-shopify-event-id": eventId,
      ...(triggeredAt ? { "x-shopify-triggered-at": triggeredAt } : {}),
    },
  });
  const claimOrder = (e: ReturnType<typeof orderEvent>) => claim(db, "shopify", e.payload, e.headers);
  const orderRow = async () =>
    (
      await query<{ financial_status: string; updated_by_event: string }>(
        db,
        sql`select financial_status, updated_by_event from "order" where external_id = '820982911946154'`,
      )
    )[0];

  it("[ties] two updates in one second, the later-triggered delivered first: the earlier is stale, the later state stays", async () => {
    await claimOrder(orderEvent("ev_paid", "paid", "2024-04-12T10:18:49.912604181Z"));
    await drain(db);
    await claimOrder(orderEvent("ev_pending", "pending", "2024-04-12T10:18:49.104877315Z"));
    expect((await drain(db)).map((r) => r.outcome)).toEqual(["stale"]);
    expect(await orderRow()).toEqual({ financial_status: "paid", updated_by_event: "ev_paid:orders/updated" });
    const [, t] = await timeline("820982911946154");
    expect(t).toMatchObject({ outcome: "stale", resolution: "provider-time" });
    expect(t?.note).toMatch(/resolved by X-Shopify-Triggered-At: that event's is later/);
  });

  it("[ties] the same two in order: the later-triggered one applies over the tie", async () => {
    await claimOrder(orderEvent("ev_pending", "pending", "2024-04-12T10:18:49.104877315Z"));
    await drain(db);
    await claimOrder(orderEvent("ev_paid", "paid", "2024-04-12T10:18:49.912604181Z"));
    expect((await drain(db)).map((r) => r.outcome)).toEqual(["settled"]);
    expect(await orderRow()).toEqual({ financial_status: "paid", updated_by_event: "ev_paid:orders/updated" });
    const [, t] = await timeline("820982911946154");
    expect(t).toMatchObject({ outcome: "applied", resolution: "provider-time" });
  });

  it("[ties] without the header on one of them, the tie is left for a person, saying why", async () => {
    await claimOrder(orderEvent("ev_paid", "paid", "2024-04-12T10:18:49.912604181Z"));
    await drain(db);
    await claimOrder(orderEvent("ev_pending", "pending"));
    expect((await drain(db)).map((r) => r.outcome)).toEqual(["tie"]);
    expect(await orderRow()).toMatchObject({ financial_status: "paid" });
    const [, t] = await timeline("820982911946154");
    expect(t).toMatchObject({ outcome: "tie", resolution: null });
    expect(t?.note).toMatch(/no chain evidence, and X-Shopify-Triggered-At is missing or the same on one of them/);
  });
});
