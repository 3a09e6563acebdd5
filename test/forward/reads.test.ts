import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { ForbiddenError } from "@/lib/errors";
import { createDestination, rotateDestinationSecret, setDestinationState } from "@/lib/forward/manage";
import { forwardId } from "@/lib/forward/message";
import { getEventForwards, listDestinationOverview, shownUrl } from "@/lib/forward/reads";
import { stripeInvoicePaidEvent, stripeSubscriptionEvent } from "@/test/fixtures/stripe";
import { setupTestDb } from "../db";
import { claim, drain, query, waitFor } from "../worker/helpers";
import { context, destinations, forwarders, support } from "./console-helpers";

const { db } = setupTestDb();
const destination = destinations();
const startForwarder = forwarders(db);

describe("destinations overview", () => {
  it("[forward] each destination's state, breaker, 24 h success rate and latency, backlog, oldest wait and last error", async () => {
    const dest = await destination();
    const issued = await createDestination(context(db), {
      name: "billing",
      url: `${dest.url}?token=hidden`,
      types: ["invoice.*"],
    });
    const rotated = await rotateDestinationSecret(context(db), { name: "billing" });
    await createDestination(context(db), {
      name: "quiet",
      url: "https://user:pw@quiet.example/in",
      sources: ["github"],
    });
    for (let i = 1; i <= 3; i++) await claim(db, "stripe", stripeInvoicePaidEvent({ eventId: `evt_o_${i}` }));
    await drain(db);
    const [{ id: forwardRowId } = { id: 0 }] = await query<{ id: number }>(
      db,
      sql`select id::int from forward where destination = 'billing' order by id limit 1`,
    );
    // The attempt log as the forwarder writes it: 20 attempts in the window, 1..20 ms, the last four failed.
    await db.execute(sql`
      insert into forward_attempt (forward_id, destination, number, started_at, duration_ms, status_code, error)
      select ${forwardRowId}, 'billing', i, now() - (21 - i) * interval '1 minute', i,
        case when i > 16 then 503 else 200 end, case when i > 16 then 'answered 503' end
      from generate_series(1, 20) i`);
    // Older than the window: not counted.
    await db.execute(sql`
      insert into forward_attempt (forward_id, destination, number, started_at, duration_ms, status_code, error)
      values (${forwardRowId}, 'billing', 0, now() - interval '30 hours', 9000, 500, 'answered 500')`);
    await db.execute(sql`
      update forward set status = case event_id when 'evt_o_2' then 'failed' when 'evt_o_3' then 'dead' else status end,
        created_at = case event_id when 'evt_o_1' then now() - interval '2 hours' else created_at end
      where destination = 'billing'`);
    await db.execute(sql`update forward_destination set breaker_until = now() + interval '5 minutes', failures_in_row = 10
      where name = 'billing'`);

    const [billing, quiet] = await listDestinationOverview(db, support);
    expect(billing).toMatchObject({
      name: "billing",
      state: "active",
      origin: "console",
      shownUrl: dest.url.replace("/hooks", "/hooks?…"),
      types: ["invoice.*"],
      failuresInRow: 10,
      attempts: 20,
      successRate: 0.8,
      p50Ms: 10.5,
      pending: 1,
      failed: 1,
      sending: 0,
      backlog: 2,
      lastError: { error: "answered 503", status: 503 },
    });
    expect(billing!.p95Ms).toBeCloseTo(19.05, 5);
    expect(billing!.breakerOpenUntil!.getTime()).toBeGreaterThan(Date.now());
    expect(Date.now() - billing!.oldestWaitingAt!.getTime()).toBeGreaterThan(1.9 * 3600_000);
    expect(billing!.secrets.map((s) => s.fingerprint)).toEqual([issued.fingerprint, rotated.fingerprint]);
    expect(billing!.secrets[0]!.expiresAt).not.toBeNull();
    expect(JSON.stringify([billing, quiet])).not.toMatch(/whsec_|token=hidden|pw@/);
    expect(billing).not.toHaveProperty("url");
    expect(quiet).toMatchObject({
      shownUrl: "https://quiet.example/in",
      attempts: 0,
      successRate: null,
      p50Ms: null,
      backlog: 0,
      oldestWaitingAt: null,
      lastError: null,
      breakerOpenUntil: null,
    });
  });

  it("[forward] the overview needs a signed-in user", async () => {
    await expect(listDestinationOverview(db, undefined)).rejects.toThrow(ForbiddenError);
  });
});

describe("an event's forwards", () => {
  it("[forward] per destination: its forward and attempts, or not forwarded by filter, or not queued; disabled ones left out", async () => {
    const dest = await destination((n) => (n === 1 ? { status: 500, body: "<i>busy</i>" } : { status: 200 }));
    await createDestination(context(db), { name: "all", url: dest.url });
    await createDestination(context(db), { name: "subs-only", url: dest.url, types: ["customer.subscription.*"] });
    await createDestination(context(db), { name: "off", url: dest.url });
    await setDestinationState(context(db), { name: "off", state: "disabled" });
    await claim(db, "stripe", stripeInvoicePaidEvent({ eventId: "evt_e_1" }));
    await drain(db);
    // Added after the event settled: it matches, but nothing was queued for it.
    await createDestination(context(db), { name: "late", url: dest.url });
    startForwarder();
    await waitFor(async () => (await query(db, sql`select 1 from forward_attempt`)).length === 1);
    await db.execute(sql`update forward set next_attempt_at = now()`);
    await waitFor(async () => (await query(db, sql`select 1 from forward where status = 'sent'`)).length === 1);

    const key = { source: "stripe", eventId: "evt_e_1" };
    const got = await getEventForwards(db, support, key);
    expect(got.map((f) => [f.destination, f.kind])).toEqual([
      ["all", "forward"],
      ["late", "not-queued"],
      ["subs-only", "filter"],
    ]);
    const all = got[0]!;
    if (all.kind !== "forward") throw new Error("expected a forward");
    expect(all).toMatchObject({
      status: "sent",
      attempts: 2,
      lastError: null,
      webhookId: forwardId({ destination: "all", ...key }),
    });
    expect(all.sentAt).toBeInstanceOf(Date);
    expect(all.attemptList.map((a) => [a.number, a.statusCode, a.responseExcerpt, a.error])).toEqual([
      [1, 500, "<i>busy</i>", "answered 500"],
      [2, 200, "ok", null],
    ]);
    expect(got[1]).toMatchObject({ kind: "not-queued", settled: true });
    expect(await getEventForwards(db, support, { source: "stripe", eventId: "evt_none" })).toEqual([]);
    await expect(getEventForwards(db, undefined, key)).rejects.toThrow(ForbiddenError);
  });

  it("[forward] newest mode: a stale forward carries the version the destination's guard holds", async () => {
    const dest = await destination();
    await createDestination(context(db), { name: "latest", url: dest.url, mode: "newest" });
    await setDestinationState(context(db), { name: "latest", state: "paused" });
    const state = (eventId: string, created: number) =>
      stripeSubscriptionEvent({ eventId, subscriptionId: "sub_R1", created });
    await claim(db, "stripe", state("evt_r2", 1_700_000_200));
    await drain(db);
    await claim(db, "stripe", state("evt_r1", 1_700_000_100));
    await drain(db);
    const [f] = await getEventForwards(db, support, { source: "stripe", eventId: "evt_r1" });
    expect(f).toMatchObject({
      kind: "forward",
      status: "stale",
      entityVersion: 1_700_000_100,
      guardVersion: 1_700_000_200,
    });
  });
});

describe("shownUrl", () => {
  it("[forward] drops the credentials and the query's values, keeps where it goes", () => {
    expect(shownUrl("https://u:p@hooks.example.com:8443/in/x?token=1&b=2")).toBe(
      "https://hooks.example.com:8443/in/x?…",
    );
    expect(shownUrl("http://127.0.0.1:9/hooks")).toBe("http://127.0.0.1:9/hooks");
  });
});
