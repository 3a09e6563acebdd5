import { sql } from "drizzle-orm";
import { pgArray } from "@/db/pg-array";
import { describe, expect, it } from "vitest";
import { ForbiddenError } from "@/lib/errors";
import { createDestination, setDestinationState } from "@/lib/forward/manage";
import { replayWindow, REPLAY_WINDOW_MAX, typeLikePattern } from "@/lib/forward/replay-window";
import { destinationMatches } from "@/lib/forward/destinations";
import { stripeInvoicePaidEvent, stripeSubscriptionEvent } from "@/test/fixtures/stripe";
import { setupTestDb } from "../db";
import { claim, drain, query, waitFor } from "../worker/helpers";
import { auditRows, context, destinations, forwarders, ops, support } from "./console-helpers";

const { db } = setupTestDb();
const destination = destinations();
const startForwarder = forwarders(db);

const HOUR = 3600_000;
const T = new Date("2030-01-01T12:00:00Z").getTime();
const at = (hours: number) => new Date(T + hours * HOUR);

/** Claims and settles an event, then dates its arrival: the window is read from received_at. */
async function arrived(payload: { id: string }, hoursFromT: number) {
  await claim(db, "stripe", payload);
  await drain(db);
  await db.execute(
    sql`update webhook_event_state set received_at = ${at(hoursFromT).toISOString()}::timestamptz where event_id = ${payload.id}`,
  );
}

const forwards = () =>
  query<{ event_id: string; status: string }>(db, sql`select event_id, status from forward order by id`);
const statuses = async () => Object.fromEntries((await forwards()).map((f) => [f.event_id, f.status]));
const idOf = (r: { body: string }) => (JSON.parse(r.body) as { id: string }).id;

describe("replay a window to a destination", () => {
  it("[forward] every matching settled event in [from, to) is queued in received order; sent ones again, same webhook-id", async () => {
    const dest = await destination();
    await createDestination(context(db), { name: "billing", url: dest.url, types: ["invoice.*"], maxInFlight: 1 });
    await arrived(stripeInvoicePaidEvent({ eventId: "evt_w_before" }), -3);
    await arrived(stripeInvoicePaidEvent({ eventId: "evt_w_a" }), -2);
    await arrived(stripeInvoicePaidEvent({ eventId: "evt_w_c" }), -1);
    await arrived(stripeSubscriptionEvent({ eventId: "evt_w_other_type" }), -1.2);
    await arrived(stripeInvoicePaidEvent({ eventId: "evt_w_to" }), 0);
    const { stop } = startForwarder();
    await waitFor(async () => dest.received.length === 4);
    await stop();
    const firstIds = new Map(dest.received.map((r) => [idOf(r), r.headers["webhook-id"]]));
    // Settled while the destination was disabled: no row, so the replay adds one.
    await setDestinationState(context(db), { name: "billing", state: "disabled" });
    await arrived(stripeInvoicePaidEvent({ eventId: "evt_w_b" }), -1.5);
    await setDestinationState(context(db), { name: "billing", state: "active" });
    expect(await statuses()).not.toHaveProperty("evt_w_b");

    const r = await replayWindow(context(db, ops), { destination: "billing", from: at(-2.5), to: at(0) });
    expect(r).toEqual({
      destination: "billing",
      matched: 3,
      queued: 1,
      reset: 2,
      notForwarded: 0,
      unchanged: 0,
      cut: false,
      resumeFrom: undefined,
    });
    expect(await statuses()).toEqual({
      evt_w_before: "sent",
      evt_w_a: "pending",
      evt_w_c: "pending",
      evt_w_to: "sent",
      evt_w_b: "pending",
    });
    dest.received.length = 0;
    startForwarder();
    await waitFor(async () => dest.received.length === 3);
    expect(dest.received.map(idOf)).toEqual(["evt_w_a", "evt_w_b", "evt_w_c"]);
    for (const got of dest.received)
      if (firstIds.has(idOf(got))) expect(got.headers["webhook-id"]).toBe(firstIds.get(idOf(got)));
    expect((await auditRows(db)).at(-1)).toMatchObject({
      action: "forwards.replay",
      target: "destination:billing",
      result: "ok",
      actor_email: "ops@example.com",
      detail: { from: at(-2.5).toISOString(), to: at(0).toISOString(), matched: 3, queued: 1, reset: 2, cut: false },
    });
  });

  it("[forward] newest mode: with v1..v3 in the window and v2 already at the destination, only v3 goes", async () => {
    const dest = await destination();
    await createDestination(context(db), { name: "billing", url: dest.url, mode: "newest" });
    const state = (eventId: string, created: number) =>
      stripeSubscriptionEvent({ eventId, subscriptionId: "sub_W1", created });
    await arrived(state("evt_v1", 1_700_000_100), -3);
    await arrived(state("evt_v2", 1_700_000_200), -2);
    const { stop } = startForwarder();
    await waitFor(async () => (await statuses()).evt_v2 === "sent");
    await stop();
    await setDestinationState(context(db), { name: "billing", state: "disabled" });
    await arrived(state("evt_v3", 1_700_000_300), -1);
    await setDestinationState(context(db), { name: "billing", state: "active" });
    const before = await statuses();
    expect(before).toEqual({ evt_v1: before.evt_v1, evt_v2: "sent" });

    const r = await replayWindow(context(db, ops), { destination: "billing", from: at(-4), to: at(0) });
    expect(r).toMatchObject({ matched: 3, queued: 1, reset: 0, notForwarded: 0, unchanged: 2 });
    expect(await statuses()).toEqual({ ...before, evt_v3: "pending" });
    const [guard] = await query<{ version: string }>(db, sql`select version::text from forward_entity`);
    expect(guard!.version).toBe("1700000300");
    dest.received.length = 0;
    startForwarder();
    await waitFor(async () => (await statuses()).evt_v3 === "sent");
    expect(dest.received.map(idOf)).toEqual(["evt_v3"]);
  });

  it("[forward] newest mode: a window's older states never go after a newer one, and the newest in it wins", async () => {
    const dest = await destination();
    await createDestination(context(db), { name: "billing", url: dest.url, mode: "newest" });
    await setDestinationState(context(db), { name: "billing", state: "disabled" });
    const state = (eventId: string, created: number) =>
      stripeSubscriptionEvent({ eventId, subscriptionId: "sub_W2", created });
    // Received out of order: v3 first.
    await arrived(state("evt_o3", 1_700_000_300), -3);
    await arrived(state("evt_o1", 1_700_000_100), -2);
    await arrived(state("evt_o2", 1_700_000_200), -1);
    await setDestinationState(context(db), { name: "billing", state: "active" });
    const r = await replayWindow(context(db, ops), { destination: "billing", from: at(-4), to: at(0) });
    expect(r).toMatchObject({ matched: 3, queued: 1, notForwarded: 2 });
    expect(await statuses()).toEqual({ evt_o3: "pending", evt_o1: "stale", evt_o2: "stale" });
  });

  it("[forward] bounded: past the limit the replay stops and says where the next one starts", async () => {
    const dest = await destination();
    await createDestination(context(db), { name: "bulk", url: dest.url });
    await setDestinationState(context(db), { name: "bulk", state: "paused" });
    const n = REPLAY_WINDOW_MAX + 5;
    // Settled events written directly: claiming fifty thousand through the worker would only slow the test.
    await db.execute(sql`
      insert into webhook_event_body (source, event_id, raw_body, headers)
      select 'stripe', 'evt_bulk_' || lpad(i::text, 6, '0'), '{}', '{}'::jsonb from generate_series(1, ${n}) i`);
    await db.execute(sql`
      insert into webhook_event_state (source, event_id, event_type, received_at, status)
      select 'stripe', 'evt_bulk_' || lpad(i::text, 6, '0'), 'invoice.paid',
        ${at(-1).toISOString()}::timestamptz + i * interval '1 millisecond', 'settled'
      from generate_series(1, ${n}) i`);
    const r = await replayWindow(context(db, ops), { destination: "bulk", from: at(-2), to: at(1) });
    expect(r).toMatchObject({ matched: REPLAY_WINDOW_MAX, queued: REPLAY_WINDOW_MAX, cut: true });
    expect(r.resumeFrom).toEqual(new Date(at(-1).getTime() + (REPLAY_WINDOW_MAX + 1)));
    const [count] = await query<{ n: number; last: string }>(
      db,
      sql`select count(*)::int as n, max(event_id) as last from forward`,
    );
    expect(count).toEqual({ n: REPLAY_WINDOW_MAX, last: `evt_bulk_${String(REPLAY_WINDOW_MAX).padStart(6, "0")}` });
  });

  it("[forward] support may not replay; a disabled destination and a backwards window are refused", async () => {
    await createDestination(context(db), { name: "billing", url: "https://x.example/" });
    await expect(
      replayWindow(context(db, support), { destination: "billing", from: at(-1), to: at(0) }),
    ).rejects.toThrow(ForbiddenError);
    await expect(replayWindow(context(db, ops), { destination: "billing", from: at(0), to: at(-1) })).rejects.toThrow(
      /end must be after its start/,
    );
    await setDestinationState(context(db), { name: "billing", state: "disabled" });
    await expect(replayWindow(context(db, ops), { destination: "billing", from: at(-1), to: at(0) })).rejects.toThrow(
      /is disabled: enable it/,
    );
    expect((await auditRows(db)).filter((a) => a.action === "forwards.replay").map((a) => a.result)).toEqual([
      "refused",
      "error",
      "error",
    ]);
  });

  it("[forward] a type glob filters in the database exactly as the settle's matcher does", async () => {
    const types = ["invoice.paid", "invoice.payment_failed", "invoice%paid", "customer.subscription.updated", "x_y"];
    const globs = ["invoice.*", "*.updated", "x_y", "invoice%*"];
    const rows = await query<{ type: string; glob: string; hit: boolean }>(
      db,
      sql`select t as type, gp.g as glob, t like gp.p as hit
          from unnest(${pgArray(types, "text")}) t,
            unnest(${pgArray(globs, "text")}, ${pgArray(globs.map(typeLikePattern), "text")}) as gp(g, p)`,
    );
    for (const r of rows)
      expect({ ...r, hit: destinationMatches({ sources: null, types: [r.glob] }, "stripe", r.type) }).toEqual(r);
    expect(rows).toHaveLength(types.length * globs.length);
  });
});
