import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { ForbiddenError, type Actor } from "@/lib/roles";
import { getEntityTimeline } from "@/lib/console/entity-timeline";
import { exportEvent, getEventDetail } from "@/lib/console/event-detail";
import { NotFoundError } from "@/lib/errors";
import { stripeSubscriptionEvent } from "@/test/fixtures/stripe";
import { depsFor, post } from "../receiver/harness";
import { setupTestDb } from "../db";
import { signStripe, TEST_SECRETS } from "../sign";
import { testSources } from "../sources";
import { drain, query, testSettings } from "../worker/helpers";

const { db } = setupTestDb();
const support: Actor = { id: "u1", email: "support@example.com", role: "support" };
/** The sources as configured now: only Stripe, with these secrets. */
const secrets = (stripe: string[]) => {
  const dir = testSources({ stripe, github: [], shopify: [], paddle: [], slack: [], standard: [] });
  return (slug: string) => dir.find(slug);
};
const current = secrets([TEST_SECRETS.stripe]);

async function deliver(event: object, times = 1) {
  const body = JSON.stringify(event);
  for (let i = 0; i < times; i++) await post(depsFor(db), "stripe", signStripe(body, TEST_SECRETS.stripe));
}

describe("the event page", () => {
  it("[console] shows every delivery, every attempt, the transition, and that the stored body verifies with the current secret", async () => {
    await deliver(stripeSubscriptionEvent({ eventId: "evt_d1", subscriptionId: "sub_1Detail0001" }), 3);
    await drain(db, testSettings());
    const d = await getEventDetail(db, support, { source: "stripe", eventId: "evt_d1" }, current);
    expect(d.event.status).toBe("settled");
    expect(d.deliveries.map((x) => x.claimed)).toEqual([true, false, false]);
    expect(d.deliveryCount).toBe(3);
    expect(d.attempts.map((a) => [a.number, a.trigger, a.outcome])).toEqual([[1, "auto", "settled"]]);
    expect(d.transitions.map((t) => [t.entityId, t.outcome])).toEqual([["sub_1Detail0001", "applied"]]);
    expect(d.signature).toEqual({ state: "verifies" });
    expect(d.event).not.toHaveProperty("leaseToken");
    expect(d.event.headers).not.toHaveProperty("cookie");
  });

  it("[console] a rotated-away secret or a tampered stored body no longer verifies; no secret says so", async () => {
    await deliver(stripeSubscriptionEvent({ eventId: "evt_d2" }));
    const key = { source: "stripe", eventId: "evt_d2" } as const;
    expect((await getEventDetail(db, support, key, secrets(["whsec_rotated"]))).signature).toMatchObject({
      state: "fails",
    });
    expect((await getEventDetail(db, support, key, secrets([]))).signature).toEqual({ state: "no-secret" });
    expect((await getEventDetail(db, support, key, secrets(["whsec_rotated", TEST_SECRETS.stripe]))).signature).toEqual(
      { state: "verifies" },
    );
    await db.execute(
      sql`update webhook_event_body set raw_body = replace(raw_body, 'active', 'canceled') where event_id = 'evt_d2'`,
    );
    expect((await getEventDetail(db, support, key, current)).signature).toMatchObject({
      state: "fails",
      reason: expect.stringMatching(/signature/) as unknown,
    });
  });

  it("[console] an unknown event is a not-found, and anonymous callers are refused", async () => {
    await expect(
      getEventDetail(db, support, { source: "stripe", eventId: "evt_none" }, current),
    ).rejects.toBeInstanceOf(NotFoundError);
    await expect(
      getEventDetail(db, undefined, { source: "stripe", eventId: "evt_none" }, current),
    ).rejects.toBeInstanceOf(ForbiddenError);
  });

  it("[console] the dispute export holds payload, raw body, headers, deliveries and attempts, and is audited", async () => {
    await deliver(stripeSubscriptionEvent({ eventId: "evt_d3" }), 2);
    await drain(db, testSettings());
    const doc = await exportEvent(db, support, { source: "stripe", eventId: "evt_d3" }, current);
    expect(doc.rawBody).toContain('"evt_d3"');
    expect(doc.headers["stripe-signature"]).toMatch(/^t=\d+,v1=/);
    expect([doc.deliveryCount, doc.attempts.length, doc.signatureVerifiesWithCurrentSecret.state]).toEqual([
      2,
      1,
      "verifies",
    ]);
    expect(JSON.parse(JSON.stringify(doc)).event.payload.id).toBe("evt_d3");
    const audit = await query<{ action: string; actor_email: string; target: string }>(
      db,
      sql`select action, actor_email, target from audit_log`,
    );
    expect(audit).toEqual([
      { action: "events.export", actor_email: "support@example.com", target: "event:stripe/evt_d3" },
    ]);
  });
});

describe("a stale event's changes", () => {
  it("[console] a stale event says what it carried and would have set (plan, status), beside the state that won", async () => {
    const sub = "sub_1DetailStale01";
    await deliver(
      stripeSubscriptionEvent({ eventId: "evt_won", created: 2000, subscriptionId: sub, priceId: "price_pro" }),
    );
    await drain(db, testSettings());
    await deliver(
      stripeSubscriptionEvent({
        eventId: "evt_late",
        created: 1000,
        subscriptionId: sub,
        status: "past_due",
        priceId: "price_basic",
      }),
    );
    await drain(db, testSettings());
    const d = await getEventDetail(db, support, { source: "stripe", eventId: "evt_late" }, current);
    expect(d.transitions.map((t) => t.outcome)).toEqual(["stale"]);
    expect(d.wouldHaveSet).toHaveLength(1);
    const [n] = d.wouldHaveSet;
    expect(n).toMatchObject({ transitionId: d.transitions[0]!.id, standing: { eventId: "evt_won", version: 2000 } });
    expect(n!.fields).toEqual(
      expect.arrayContaining([
        { field: "plan", carried: "price_basic", standing: "price_pro" },
        { field: "status", carried: "past_due", standing: "active" },
      ]),
    );
    // An applied event has nothing to compare: what it set is its changes.
    const applied = await getEventDetail(db, support, { source: "stripe", eventId: "evt_won" }, current);
    expect(applied.wouldHaveSet).toEqual([]);
  });
});

describe("the entity timeline", () => {
  it("[console] shows each event that tried to move a subscription, newest first, the stale one marked, and the current state", async () => {
    const sub = "sub_1Timeline001";
    await deliver(
      stripeSubscriptionEvent({ eventId: "evt_t2", created: 2000, status: "past_due", subscriptionId: sub }),
    );
    await drain(db, testSettings());
    await deliver(stripeSubscriptionEvent({ eventId: "evt_t1", created: 1000, status: "active", subscriptionId: sub })); // arrives late
    await drain(db, testSettings());
    await deliver(
      stripeSubscriptionEvent({ eventId: "evt_t3", created: 3000, status: "canceled", subscriptionId: sub }),
    ); // not processed yet
    const t = await getEntityTimeline(db, support, { source: "stripe", entityType: "subscription", entityId: sub });
    expect(t.entries.map((e) => [e.eventId, e.version, e.outcome])).toEqual([
      ["evt_t3", 3000, "pending"],
      ["evt_t1", 1000, "stale"],
      ["evt_t2", 2000, "applied"],
    ]);
    expect(t.entries[2]!.changes).toMatchObject({ status: { from: null, to: "past_due" } });
    expect(t.current).toMatchObject({ version: 2000, eventId: "evt_t2" });
    expect(t.state).toMatchObject({ external_id: sub, status: "past_due" });
    await expect(
      getEntityTimeline(db, undefined, { source: "stripe", entityType: "subscription", entityId: sub }),
    ).rejects.toBeInstanceOf(ForbiddenError);
  });
});
