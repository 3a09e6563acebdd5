import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { ZodError } from "zod";
import { ForbiddenError, type Actor } from "@/lib/roles";
import { SEARCH_PROBE_LIMIT } from "@/lib/console/event-filter";
import { listEvents, type ListEventsInput } from "@/lib/console/list-events";
import { githubIssuesOpened } from "@/test/fixtures/github";
import { stripeInvoicePaidEvent, stripeSubscriptionEvent } from "@/test/fixtures/stripe";
import { setupTestDb } from "../db";
import { claim } from "../worker/helpers";
import { seedEvents } from "@/test/seed-events";

const { db } = setupTestDb();
const support: Actor = { id: "u1", email: "support@example.com", role: "support" };

async function walk(input: ListEventsInput): Promise<string[][]> {
  const pages: string[][] = [];
  let cursor: string | undefined;
  do {
    const page = await listEvents(db, support, { ...input, cursor });
    pages.push(page.rows.map((r) => r.eventId));
    cursor = page.nextCursor;
  } while (cursor && pages.length < 100);
  return pages;
}

describe("the events list", () => {
  it("[console] keyset pages never skip or repeat rows that share a millisecond, forwards and back", async () => {
    for (let i = 0; i < 7; i++)
      await claim(db, "stripe", stripeSubscriptionEvent({ eventId: `evt_${i}`, subscriptionId: `sub_1Page${i}000` }));
    // Same millisecond, different microseconds: a cursor rounded to a JS Date would lose rows here.
    await db.execute(
      sql`update webhook_event_state set received_at = '2026-11-29 10:00:00.123000+00'::timestamptz + (substr(event_id, 5)::int * interval '1 microsecond')`,
    );
    const pages = await walk({ limit: 2 });
    expect(pages).toEqual([["evt_6", "evt_5"], ["evt_4", "evt_3"], ["evt_2", "evt_1"], ["evt_0"]]);
    expect((await walk({ limit: 3, sort: "received_asc" })).flat()).toEqual([
      "evt_0",
      "evt_1",
      "evt_2",
      "evt_3",
      "evt_4",
      "evt_5",
      "evt_6",
    ]);

    const p1 = await listEvents(db, support, { limit: 2 });
    const p2 = await listEvents(db, support, { limit: 2, cursor: p1.nextCursor });
    const p3 = await listEvents(db, support, { limit: 2, cursor: p2.nextCursor });
    expect(p1.prevCursor).toBeUndefined();
    const back = await listEvents(db, support, { limit: 2, cursor: p3.prevCursor, back: true });
    expect(back.rows.map((r) => r.eventId)).toEqual(["evt_4", "evt_3"]);
    const first = await listEvents(db, support, { limit: 2, cursor: back.prevCursor, back: true });
    expect(first.rows.map((r) => r.eventId)).toEqual(["evt_6", "evt_5"]);
    expect(first.prevCursor).toBeUndefined();
    expect(first.nextCursor).toBeDefined();
  });

  it("[console] filters by source, type, status and time range, alone and together", async () => {
    await claim(db, "stripe", stripeSubscriptionEvent({ eventId: "evt_sub", subscriptionId: "sub_1Filter000001" }));
    await claim(db, "stripe", stripeInvoicePaidEvent({ eventId: "evt_inv" }));
    await claim(db, "github", githubIssuesOpened(), { "x-github-delivery": "gh-1", "x-github-event": "issues" });
    await db.execute(
      sql`update webhook_event_state set status = 'dead', received_at = '2026-11-01T00:00:00Z' where event_id = 'evt_inv'`,
    );
    const ids = async (filter: ListEventsInput["filter"]) =>
      (await listEvents(db, support, { filter })).rows.map((r) => r.eventId).sort();
    expect(await ids({ source: ["github"] })).toEqual(["gh-1"]);
    expect(await ids({ source: "stripe,github" })).toEqual(["evt_inv", "evt_sub", "gh-1"]);
    expect(await ids({ type: ["invoice.paid"] })).toEqual(["evt_inv"]);
    expect(await ids({ status: ["dead"] })).toEqual(["evt_inv"]);
    expect(await ids({ status: ["claimed"], source: ["stripe"] })).toEqual(["evt_sub"]);
    expect(await ids({ to: "2026-11-02T00:00" })).toEqual(["evt_inv"]);
    expect(await ids({ from: "2026-11-02T00:00Z" })).toEqual(["evt_sub", "gh-1"]);
  });

  it("[console] Search finds an event by id, and every event that touched a customer, subscription or email", async () => {
    await claim(
      db,
      "stripe",
      stripeSubscriptionEvent({ eventId: "evt_a", subscriptionId: "sub_1Search00001", customerId: "cus_Search001" }),
    );
    await claim(
      db,
      "stripe",
      stripeSubscriptionEvent({
        eventId: "evt_b",
        subscriptionId: "sub_1Search00001",
        customerId: "cus_Search001",
        created: 1712917200,
      }),
    );
    await claim(
      db,
      "stripe",
      stripeInvoicePaidEvent({
        eventId: "evt_c",
        customerId: "cus_Search001",
        customerEmail: "Jenny.Rosen@Example.com",
      }),
    );
    await claim(
      db,
      "stripe",
      stripeInvoicePaidEvent({
        eventId: "evt_other",
        customerId: "cus_Other0001",
        customerEmail: "someone@example.com",
      }),
    );
    const found = async (q: string) =>
      (await listEvents(db, support, { filter: { q } })).rows.map((r) => r.eventId).sort();
    expect(await found("evt_b")).toEqual(["evt_b"]);
    expect(await found("cus_Search001")).toEqual(["evt_a", "evt_b", "evt_c"]);
    expect(await found("sub_1Search00001")).toEqual(["evt_a", "evt_b"]);
    expect(await found("jenny.rosen@example.com")).toEqual(["evt_c"]);
    expect(await found("JENNY.ROSEN@example.com")).toEqual(["evt_c"]);
    expect(await found("cus_Nobody")).toEqual([]);
  });

  it("[console] Search answers the same past the GIN probe's cap: a common id pages through all its events", async () => {
    await seedEvents(
      db,
      "source, event_id, event_type, payload, raw_body, headers, subject_ids, received_at",
      sql`
      select 'stripe', 'evt_common_' || n, 'invoice.paid', '{}'::jsonb, '{}', '{}'::jsonb,
             case when n <= 3 then array['price_Common01', 'cus_Rare0001'] else array['price_Common01'] end,
             '2026-11-01'::timestamptz + n * interval '1 second'
      from generate_series(1, ${SEARCH_PROBE_LIMIT + 5}) n`,
    );
    const all = (await walk({ filter: { q: "price_Common01" }, limit: 200 })).flat();
    expect(all).toHaveLength(SEARCH_PROBE_LIMIT + 5);
    expect(new Set(all).size).toBe(SEARCH_PROBE_LIMIT + 5);
    expect((await listEvents(db, support, { filter: { q: "cus_Rare0001" } })).rows.map((r) => r.eventId)).toEqual([
      "evt_common_3",
      "evt_common_2",
      "evt_common_1",
    ]);
    expect((await listEvents(db, support, { filter: { q: "evt_common_7" } })).rows.map((r) => r.eventId)).toEqual([
      "evt_common_7",
    ]);
  });

  it("[console] the list needs a signed-in role; a damaged cursor or an unknown status is a clear input error", async () => {
    await expect(listEvents(db, undefined, {})).rejects.toBeInstanceOf(ForbiddenError);
    await expect(listEvents(db, support, { cursor: "not-a-cursor" })).rejects.toThrow(/page link is damaged/);
    const err = await listEvents(db, support, { filter: { status: ["exploded"] } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ZodError);
    expect((err as ZodError).issues[0]?.message).toBe('unknown status "exploded"');
    await expect(listEvents(db, support, { filter: { from: "yesterday-ish" } })).rejects.toThrow(/not a date and time/);
  });
});
