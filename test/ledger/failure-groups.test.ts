import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { ForbiddenError, type Actor } from "@/lib/roles";
import { ConflictError } from "@/lib/errors";
import { handlerLookup } from "@/lib/handlers/registry";
import {
  errorKindOfMessage,
  FAILURE_GROUP_SCAN_CAP,
  failurePattern as pattern,
  getFailureDetails,
  listFailureGroups,
} from "@/lib/console/failure-groups";
import { requeueEvent } from "@/lib/console/requeue";
import { countRequeueable, requeueMatching } from "@/lib/console/requeue-matching";
import { stripeSubscriptionEvent } from "@/test/fixtures/stripe";
import { setupTestDb } from "../db";
import { claim, drain, query, testSettings } from "../worker/helpers";
import { seedEvents } from "@/test/seed-events";

const { db } = setupTestDb();
const ops: Actor = { id: "u-ops", email: "ops@example.com", role: "ops" };
const support: Actor = { id: "u-sup", email: "support@example.com", role: "support" };

interface Seed {
  id: string;
  error: string;
  type?: string;
  status?: "dead" | "failed";
  /** Seconds ago the event was received; its last attempt started a second later. */
  ago: number;
}

async function seed(events: Seed[]) {
  // One "now" for every row: each row is its own statement, and on a busy machine statements are a second apart.
  const now = new Date().toISOString();
  for (const e of events)
    await seedEvents(
      db,
      "source, event_id, event_type, payload, raw_body, headers, status, attempts, last_error, outcome, received_at, leased_at",
      sql`
      values ('stripe', ${e.id}, ${e.type ?? "invoice.paid"}, '{}'::jsonb, '{}', '{}'::jsonb, ${e.status ?? "dead"}, 2,
              ${e.error}, 'failed', ${now}::timestamptz - ${e.ago} * interval '1 second',
              ${now}::timestamptz - ${e.ago - 1} * interval '1 second')`,
    );
}

describe("failure groups", () => {
  it("[ledger] the pattern takes out ids, UUIDs and numbers, and keeps the words", () => {
    expect(pattern("permanent: Subscription sub_123 missing")).toBe("permanent: Subscription sub_… missing");
    expect(pattern("permanent: Subscription sub_1MowQVLkdIwHu7ix missing")).toBe(
      "permanent: Subscription sub_… missing",
    );
    expect(pattern("Customer cus_AbCdEf not found")).toBe("Customer cus_… not found");
    expect(pattern("lock 0b6f3c3e-2d7c-4d4c-9a55-6f0f1a0e9d11 held  by  worker-17")).toBe("lock … held by worker-#");
    expect(pattern("HTTP 503 after 1500 ms")).toBe("HTTP # after # ms");
    // Field names are not ids: no digit and no capital after the underscore.
    expect(pattern("missing previous_attributes.customer_id")).toBe("missing previous_attributes.customer_id");
    expect(pattern(null)).toBe("");
    expect(errorKindOfMessage("permanent: no customer")).toBe("permanent");
    expect(errorKindOfMessage("lease expired: the worker stopped")).toBe("transient");
  });

  it("[ledger] groups dead events by source, type, error kind and pattern, largest first, with examples", async () => {
    await seed([
      { id: "evt_1", error: "permanent: Subscription sub_123 missing", ago: 50 },
      { id: "evt_2", error: "permanent: Subscription sub_456 missing", ago: 40 },
      { id: "evt_3", error: "permanent: Subscription sub_789 missing", ago: 30 },
      { id: "evt_4", error: "permanent: Subscription sub_555 missing", ago: 20, type: "invoice.payment_failed" },
      { id: "evt_5", error: "timeout after 3000 ms", ago: 10 },
      { id: "evt_6", error: "timeout after 2500 ms", ago: 10, status: "failed" },
    ]);
    const { groups, capped, scanned, totalGroups } = await listFailureGroups(db, support, { status: "dead" });
    expect({ capped, scanned, totalGroups }).toEqual({ capped: false, scanned: 5, totalGroups: 3 });
    expect(groups[0]).toMatchObject({
      source: "stripe",
      eventType: "invoice.paid",
      errorKind: "permanent",
      pattern: "permanent: Subscription sub_… missing",
      example: "permanent: Subscription sub_123 missing",
      count: 3,
      exampleEventIds: ["evt_3", "evt_2", "evt_1"],
    });
    // Seen when their last attempts started: 49 s and 29 s ago.
    expect(Math.round((groups[0]!.lastSeen.getTime() - groups[0]!.firstSeen.getTime()) / 1000)).toBe(20);
    expect(groups.slice(1).map((g) => [g.eventType, g.errorKind, g.pattern, g.count])).toEqual([
      ["invoice.paid", "transient", "timeout after # ms", 1],
      ["invoice.payment_failed", "permanent", "permanent: Subscription sub_… missing", 1],
    ]);
    const retrying = await listFailureGroups(db, support, { status: "failed" });
    expect(retrying.groups).toMatchObject([{ pattern: "timeout after # ms", count: 1, exampleEventIds: ["evt_6"] }]);
  });

  it("[ledger] the example is the message in full, though the pattern reads only its start", async () => {
    const long = `permanent: ${"x".repeat(400)} tail 123`;
    await seed([{ id: "evt_long", error: long, ago: 5 }]);
    const [group] = (await listFailureGroups(db, support)).groups;
    expect(group!.example).toBe(long);
    expect(group!.pattern).toBe(`permanent: ${"x".repeat(289)}`);
  });

  it("[ledger] the error kind is the last attempt's, as the worker recorded it", async () => {
    const broken = stripeSubscriptionEvent({ eventId: "evt_unreadable", subscriptionId: "sub_Broken0001" });
    (broken.data.object as { items: unknown }).items = { object: "list", data: [] };
    await claim(db, "stripe", broken);
    await drain(db);
    await claim(db, "stripe", stripeSubscriptionEvent({ eventId: "evt_unknown_source" }));
    await drain(db, testSettings({ handlers: handlerLookup(undefined, () => undefined) }));
    const { groups } = await listFailureGroups(db, support);
    const attempts = await query<{ event_id: string; error_kind: string }>(
      db,
      sql`select distinct on (event_id) event_id, error_kind from webhook_attempt order by event_id, number desc`,
    );
    expect(groups.map((g) => [g.exampleEventIds[0], g.errorKind]).sort()).toEqual(
      attempts.map((a) => [a.event_id, a.error_kind]),
    );
    expect(attempts.map((a) => a.error_kind)).toEqual(["transient", "permanent"]);
  });

  it("[ledger] a group's first seen is its first failed attempt: a requeue that fails again does not move it", async () => {
    const broken = stripeSubscriptionEvent({ eventId: "evt_requeued", subscriptionId: "sub_Broken0002" });
    (broken.data.object as { items: unknown }).items = { object: "list", data: [] };
    await claim(db, "stripe", broken);
    await drain(db);
    // Twelve minutes pass before a person requeues it.
    await db.execute(sql`
      update webhook_attempt set started_at = started_at - interval '12 minutes',
                                 finished_at = finished_at - interval '12 minutes'`);
    await db.execute(sql`
      update webhook_event_state set received_at = received_at - interval '12 minutes',
                                     leased_at = leased_at - interval '12 minutes'`);
    const [first] = await query<{ at: string }>(
      db,
      sql`select (extract(epoch from started_at) * 1000)::float8 as at from webhook_attempt where number = 1`,
    );
    const before = (await listFailureGroups(db, support)).groups[0]!;
    expect(Math.abs(before.firstSeen.getTime() - Number(first!.at))).toBeLessThanOrEqual(1);

    await requeueEvent({ db, actor: ops, input: { source: "stripe", eventId: "evt_requeued" } });
    await drain(db);
    expect(await query(db, sql`select status, attempts from webhook_event`)).toEqual([{ status: "dead", attempts: 2 }]);
    const after = (await listFailureGroups(db, support)).groups[0]!;
    expect(after.count).toBe(1);
    expect(after.firstSeen).toEqual(before.firstSeen);
    expect(after.lastSeen.getTime() - before.lastSeen.getTime()).toBeGreaterThan(11 * 60_000);
  });

  it("[ledger] reads at most the newest 5,000 events of the status and says it is capped", async () => {
    await seedEvents(
      db,
      "source, event_id, event_type, payload, raw_body, headers, status, last_error, received_at",
      sql`
      select 'stripe', 'evt_bulk_' || n, 'invoice.paid', '{}'::jsonb, '{}', '{}'::jsonb, 'dead',
             'permanent: Invoice in_' || n || ' unreadable', now() - n * interval '1 second'
      from generate_series(1, ${FAILURE_GROUP_SCAN_CAP + 3}) n`,
    );
    const result = await listFailureGroups(db, support, {});
    expect(result).toMatchObject({ capped: true, scanned: FAILURE_GROUP_SCAN_CAP, totalGroups: 1 });
    expect(result.groups[0]).toMatchObject({
      count: FAILURE_GROUP_SCAN_CAP,
      pattern: "permanent: Invoice in_… unreadable",
    });
    // The newest ones: the oldest three were not read.
    expect(result.groups[0]!.example).toBe(`permanent: Invoice in_${FAILURE_GROUP_SCAN_CAP} unreadable`);
  });

  it("[ledger] a group's requeue counts and moves only that group, audited with the group", async () => {
    await seed([
      { id: "evt_a1", error: "permanent: Subscription sub_123 missing", ago: 50 },
      { id: "evt_a2", error: "permanent: Subscription sub_456 missing", ago: 40 },
      { id: "evt_b1", error: "Subscription sub_789 missing", ago: 30 },
      { id: "evt_c1", error: "permanent: Subscription sub_321 missing", ago: 30, type: "invoice.payment_failed" },
      { id: "evt_d1", error: "permanent: Customer cus_123 missing", ago: 30 },
      { id: "evt_e1", error: "permanent: Subscription sub_654 missing", ago: 30, status: "failed" },
    ]);
    const [group] = (await listFailureGroups(db, ops, { status: "dead" })).groups;
    expect(group).toMatchObject({ count: 2, eventType: "invoice.paid", errorKind: "permanent" });
    const filter = { source: ["stripe"], type: [group!.eventType], status: ["dead" as const] };
    const key = { errorKind: group!.errorKind, pattern: group!.pattern };
    expect(await countRequeueable(db, ops, filter, key)).toBe(2);
    // Grown past what was confirmed: nothing moves.
    await expect(
      requeueMatching({ db, actor: ops, input: { filter, confirmed: 1, group: key } }),
    ).rejects.toBeInstanceOf(ConflictError);
    expect(await requeueMatching({ db, actor: ops, input: { filter, confirmed: 2, group: key } })).toEqual({
      requeued: 2,
    });
    expect(
      await query(db, sql`select event_id, status, next_trigger, next_actor from webhook_event order by event_id`),
    ).toEqual([
      { event_id: "evt_a1", status: "claimed", next_trigger: "requeue", next_actor: ops.email },
      { event_id: "evt_a2", status: "claimed", next_trigger: "requeue", next_actor: ops.email },
      { event_id: "evt_b1", status: "dead", next_trigger: "auto", next_actor: null },
      { event_id: "evt_c1", status: "dead", next_trigger: "auto", next_actor: null },
      { event_id: "evt_d1", status: "dead", next_trigger: "auto", next_actor: null },
      { event_id: "evt_e1", status: "failed", next_trigger: "auto", next_actor: null },
    ]);
    expect(await query(db, sql`select action, result, detail->'group' as grp from audit_log order by id`)).toEqual([
      { action: "events.requeue-bulk", result: "error", grp: key },
      { action: "events.requeue-bulk", result: "ok", grp: key },
    ]);
    // The group is gone from the dead list's groups; the rest are as they were.
    const after = await listFailureGroups(db, support, { status: "dead" });
    expect(after.groups.map((g) => [g.eventType, g.pattern, g.count]).sort()).toEqual([
      ["invoice.paid", "Subscription sub_… missing", 1],
      ["invoice.paid", "permanent: Customer cus_… missing", 1],
      ["invoice.payment_failed", "permanent: Subscription sub_… missing", 1],
    ]);
    // A group nobody is in any more counts 0 and requeues nothing.
    expect(await countRequeueable(db, ops, filter, key)).toBe(0);
  });

  it("[ledger] the dead list's details: kind, attempts since the budget restarted, last attempt", async () => {
    await seed([{ id: "evt_x", error: "permanent: boom", ago: 5 }]);
    await db.execute(sql`update webhook_event_state set attempts = 11, attempts_base = 8 where event_id = 'evt_x'`);
    const detail = await getFailureDetails(db, support, [{ source: "stripe", eventId: "evt_x" }]);
    expect(detail({ source: "stripe", eventId: "evt_x" })).toMatchObject({ errorKind: "permanent", attemptsUsed: 3 });
    expect(detail({ source: "stripe", eventId: "evt_x" })!.lastAttemptAt).toBeInstanceOf(Date);
    expect(detail({ source: "stripe", eventId: "evt_none" })).toBeUndefined();
  });

  it("[ledger] support reads the groups but may not requeue one", async () => {
    await seed([{ id: "evt_s1", error: "permanent: boom", ago: 5 }]);
    expect((await listFailureGroups(db, support)).groups).toHaveLength(1);
    await expect(listFailureGroups(db, undefined)).rejects.toBeInstanceOf(ForbiddenError);
    const input = {
      filter: { status: ["dead" as const] },
      confirmed: 1,
      group: { errorKind: "permanent" as const, pattern: "permanent: boom" },
    };
    await expect(requeueMatching({ db, actor: support, input })).rejects.toBeInstanceOf(ForbiddenError);
    await expect(countRequeueable(db, support, input.filter, input.group)).rejects.toBeInstanceOf(ForbiddenError);
    expect(await query(db, sql`select status from webhook_event`)).toEqual([{ status: "dead" }]);
  });
});
