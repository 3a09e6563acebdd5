import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { ForbiddenError, NotFoundError } from "@/lib/errors";
import { createDestination } from "@/lib/forward/manage";
import { countRequeueableForwards, FORWARD_REQUEUE_MAX, requeueForward, requeueForwards } from "@/lib/forward/requeue";
import { stripeInvoicePaidEvent, stripeSubscriptionEvent } from "@/test/fixtures/stripe";
import { setupTestDb } from "../db";
import { claim, drain, query, waitFor } from "../worker/helpers";
import { auditRows, context, destinations, forwarders, ops, support } from "./console-helpers";

const { db } = setupTestDb();
const destination = destinations();
const startForwarder = forwarders(db);

const forwards = () =>
  query<{ event_id: string; status: string; attempts: number }>(
    db,
    sql`select event_id, status, attempts from forward order by id`,
  );
const statusOf = async (eventId: string) => (await forwards()).find((f) => f.event_id === eventId)?.status;

/** A destination that answers 500 until `healthy.on` is set, with one attempt each: a failure is dead at once. */
async function flakyDestination(mode: "every" | "newest" = "every") {
  const healthy = { on: false };
  const dest = await destination(() => (healthy.on ? { status: 200 } : { status: 500, body: "down" }));
  await createDestination(context(db), { name: "billing", url: dest.url, maxAttempts: 1, mode });
  return { dest, healthy };
}

describe("requeue one forward", () => {
  it("[forward] ops requeue a dead forward: pending with a fresh budget, then sent with the same webhook-id", async () => {
    const { dest, healthy } = await flakyDestination();
    await claim(db, "stripe", stripeInvoicePaidEvent({ eventId: "evt_rq_1" }));
    await drain(db);
    const { stop } = startForwarder();
    await waitFor(async () => (await statusOf("evt_rq_1")) === "dead");
    await stop();
    const key = { destination: "billing", source: "stripe", eventId: "evt_rq_1" };
    expect(await requeueForward(context(db, ops), key)).toEqual({ status: "pending" });
    expect(await forwards()).toEqual([{ event_id: "evt_rq_1", status: "pending", attempts: 0 }]);
    healthy.on = true;
    startForwarder();
    await waitFor(async () => (await statusOf("evt_rq_1")) === "sent");
    expect(dest.received).toHaveLength(2);
    expect(dest.received[1]!.headers["webhook-id"]).toBe(dest.received[0]!.headers["webhook-id"]);
    const attempts = await query<{ status_code: number }>(db, sql`select status_code from forward_attempt order by id`);
    expect(attempts.map((a) => a.status_code)).toEqual([500, 200]);
    expect((await auditRows(db)).at(-1)).toMatchObject({
      action: "forwards.requeue",
      target: "forward:billing/stripe/evt_rq_1",
      result: "ok",
      actor_email: "ops@example.com",
      detail: { from: "dead" },
    });
  });

  it("[forward] support may not requeue; a sent forward or a missing one is refused with what it is", async () => {
    const dest = await destination();
    await createDestination(context(db), { name: "billing", url: dest.url });
    await claim(db, "stripe", stripeInvoicePaidEvent({ eventId: "evt_rq_2" }));
    await drain(db);
    startForwarder();
    await waitFor(async () => (await statusOf("evt_rq_2")) === "sent");
    const key = { destination: "billing", source: "stripe", eventId: "evt_rq_2" };
    await expect(requeueForward(context(db, support), key)).rejects.toThrow(ForbiddenError);
    await expect(requeueForward(context(db, ops), key)).rejects.toThrow(
      /is sent; only failed, dead or superseded forwards can be requeued/,
    );
    await expect(requeueForward(context(db, ops), { ...key, eventId: "evt_none" })).rejects.toThrow(NotFoundError);
    expect(await statusOf("evt_rq_2")).toBe("sent");
    expect((await auditRows(db)).filter((a) => a.action === "forwards.requeue").map((a) => a.result)).toEqual([
      "refused",
      "error",
      "error",
    ]);
  });

  it("[forward] newest mode: an older state is not requeued once a newer one of its entity is queued or sent", async () => {
    const { healthy } = await flakyDestination("newest");
    const state = (eventId: string, created: number) =>
      stripeSubscriptionEvent({ eventId, subscriptionId: "sub_RQ1", created });
    await claim(db, "stripe", state("evt_v1", 1_700_000_100));
    await drain(db);
    const { stop } = startForwarder();
    await waitFor(async () => (await statusOf("evt_v1")) === "dead");
    await stop();
    // v2 arrives: the dead v1 is overtaken before anyone requeued it.
    await claim(db, "stripe", state("evt_v2", 1_700_000_200));
    await drain(db);
    expect(await forwards()).toMatchObject([
      { event_id: "evt_v1", status: "superseded" },
      { event_id: "evt_v2", status: "pending" },
    ]);
    const v1 = { destination: "billing", source: "stripe", eventId: "evt_v1" };
    await expect(requeueForward(context(db, ops), v1)).rejects.toThrow(
      /a newer state of this entity \(version 1700000200, event evt_v2, pending\) has already gone to "billing" or waits for it/,
    );
    healthy.on = true;
    startForwarder();
    await waitFor(async () => (await statusOf("evt_v2")) === "sent");
    await expect(requeueForward(context(db, ops), v1)).rejects.toThrow(/event evt_v2, sent/);
    expect(await statusOf("evt_v1")).toBe("superseded");
  });
});

describe("requeue a destination's failed or dead forwards", () => {
  it("[forward] the count comes first; the requeue takes exactly what was confirmed, or nothing", async () => {
    await flakyDestination();
    for (let i = 0; i < 3; i++) await claim(db, "stripe", stripeInvoicePaidEvent({ eventId: `evt_bulk_${i}` }));
    await drain(db);
    const { stop } = startForwarder();
    await waitFor(async () => (await forwards()).every((f) => f.status === "dead"));
    await stop();
    const ctx = context(db, ops);
    expect(await countRequeueableForwards(ctx, { destination: "billing", statuses: ["failed"] })).toBe(0);
    expect(await countRequeueableForwards(ctx, { destination: "billing", statuses: ["dead", "failed"] })).toBe(3);
    await expect(requeueForwards(ctx, { destination: "billing", statuses: ["dead"], confirmed: 2 })).rejects.toThrow(
      /more than the 2 forwards you confirmed match now; count again/,
    );
    expect((await forwards()).map((f) => f.status)).toEqual(["dead", "dead", "dead"]);
    expect(await requeueForwards(ctx, { destination: "billing", statuses: ["dead"], confirmed: 3 })).toEqual({
      requeued: 3,
    });
    expect(await forwards()).toMatchObject([
      { status: "pending", attempts: 0 },
      { status: "pending", attempts: 0 },
      { status: "pending", attempts: 0 },
    ]);
    expect((await auditRows(db)).filter((a) => a.action === "forwards.requeue-bulk")).toMatchObject([
      { result: "error", target: "destination:billing" },
      { result: "ok", detail: { statuses: ["dead"], confirmed: 3, requeued: 3 } },
    ]);
  });

  it("[forward] bounded: past FORWARD_REQUEUE_MAX the count says more, and confirming the bound takes the oldest", async () => {
    await createDestination(context(db), { name: "bulk", url: "https://x.example/" });
    const n = FORWARD_REQUEUE_MAX + 5;
    // Dead forwards written directly: failing ten thousand through the forwarder would only slow the test.
    await db.execute(sql`
      insert into webhook_event_body (source, event_id, raw_body, headers)
      select 'stripe', 'evt_many_' || lpad(i::text, 6, '0'), '{}', '{}'::jsonb from generate_series(1, ${n}) i`);
    await db.execute(sql`
      insert into forward (destination, source, event_id, status, attempts)
      select 'bulk', 'stripe', 'evt_many_' || lpad(i::text, 6, '0'), 'dead', 10 from generate_series(1, ${n}) i`);
    const ctx = context(db, ops);
    expect(await countRequeueableForwards(ctx, { destination: "bulk", statuses: ["dead"] })).toBe(
      FORWARD_REQUEUE_MAX + 1,
    );
    expect(
      await requeueForwards(ctx, { destination: "bulk", statuses: ["dead"], confirmed: FORWARD_REQUEUE_MAX }),
    ).toEqual({ requeued: FORWARD_REQUEUE_MAX });
    const left = await query<{ event_id: string }>(
      db,
      sql`select event_id from forward where status = 'dead' order by id`,
    );
    expect(left.map((r) => r.event_id)).toEqual(
      [1, 2, 3, 4, 5].map((k) => `evt_many_${String(FORWARD_REQUEUE_MAX + k).padStart(6, "0")}`),
    );
  });

  it("[forward] support may neither count nor requeue; an unknown destination is not found", async () => {
    await flakyDestination();
    await expect(
      countRequeueableForwards(context(db, support), { destination: "billing", statuses: ["dead"] }),
    ).rejects.toThrow(ForbiddenError);
    await expect(
      requeueForwards(context(db, support), { destination: "billing", statuses: ["dead"], confirmed: 1 }),
    ).rejects.toThrow(ForbiddenError);
    await expect(
      requeueForwards(context(db, ops), { destination: "nope", statuses: ["dead"], confirmed: 1 }),
    ).rejects.toThrow(NotFoundError);
    await expect(countRequeueableForwards(context(db, ops), { destination: "billing", statuses: [] })).rejects.toThrow(
      /Choose failed, dead or both/,
    );
    expect((await auditRows(db)).map((a) => a.result)).toEqual(["ok", "refused", "error"]);
  });

  it("[forward] newest mode: a dead older state whose entity has a newer one queued is left out of the count", async () => {
    await flakyDestination("newest");
    const state = (eventId: string, sub: string, created: number) =>
      stripeSubscriptionEvent({ eventId, subscriptionId: sub, created });
    await claim(db, "stripe", state("evt_a1", "sub_A", 1_700_000_100));
    await claim(db, "stripe", state("evt_b1", "sub_B", 1_700_000_100));
    await drain(db);
    await claim(db, "stripe", state("evt_a2", "sub_A", 1_700_000_200));
    await drain(db);
    // The forwarder reaches "older state dead beside a newer one" only through a race (the older failing its
    // last attempt while the newer is queued); the rows are set to it here.
    await db.execute(sql`update forward set status = 'dead'`);
    const ctx = context(db, ops);
    expect(await countRequeueableForwards(ctx, { destination: "billing", statuses: ["dead"] })).toBe(2);
    await requeueForwards(ctx, { destination: "billing", statuses: ["dead"], confirmed: 2 });
    expect(Object.fromEntries((await forwards()).map((f) => [f.event_id, f.status]))).toEqual({
      evt_a1: "dead",
      evt_b1: "pending",
      evt_a2: "pending",
    });
  });
});
