import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { ZodError } from "zod";
import { ForbiddenError, type Actor } from "@/lib/roles";
import { UnavailableError, ValidationError } from "@/lib/errors";
import { listEventTypes } from "@/lib/console/event-types";
import { searchPayloads, type SearchPayloadsInput } from "@/lib/console/payload-search";
import { githubIssuesOpened } from "@/test/fixtures/github";
import { stripeInvoicePaidEvent, stripeSubscriptionEvent } from "@/test/fixtures/stripe";
import { setupTestDb } from "../db";
import { claim, query } from "../worker/helpers";

const { db } = setupTestDb();
const support: Actor = { id: "u1", email: "support@example.com", role: "support" };
const now = new Date("2026-11-29T12:00:00Z");

const search = (input: Partial<SearchPayloadsInput> & { where: string }, opts: { timeoutMs?: number } = {}) =>
  searchPayloads(db, support, input, { now, ...opts });
const ids = (page: { rows: { eventId: string }[] }) => page.rows.map((r) => r.eventId).sort();

/** Four Stripe events and two GitHub ones, received in the hour before `now`; one more two days before. */
async function seed() {
  const sub = (eventId: string, status: string, customerId = "cus_Search0001") =>
    claim(db, "stripe", stripeSubscriptionEvent({ eventId, status, customerId, subscriptionId: `sub_${eventId}` }));
  await sub("evt_pd1", "past_due");
  await sub("evt_pd2", "past_due", "cus_Search0002");
  await sub("evt_act", "active");
  await claim(db, "stripe", stripeInvoicePaidEvent({ eventId: "evt_inv", amount: 2000 }));
  const gh = (id: string, fullName: string) =>
    claim(db, "github", githubIssuesOpened({ repository: { fullName } }), {
      "x-github-delivery": id,
      "x-github-event": "issues",
    });
  await gh("gh-acme", "Acme/widgets");
  await gh("gh-other", "Codertocat/Hello-World");
  await sub("evt_old", "past_due");
  await db.execute(
    sql`update webhook_event_state set received_at = ${now.toISOString()}::timestamptz - interval '30 minutes'`,
  );
  await db.execute(
    sql`update webhook_event_state set received_at = ${now.toISOString()}::timestamptz - interval '2 days' where event_id = 'evt_old'`,
  );
}

describe("search inside payloads", () => {
  it("[console] = finds the events whose payload has the value at the path, and says how many it examined", async () => {
    await seed();
    // The payload is stored only as the raw body: the search reads raw_body as jsonb.
    expect(await query(db, sql`select 1 from webhook_event where payload is not null`)).toEqual([]);
    const page = await search({ where: "data.object.status = past_due" });
    expect(ids(page)).toEqual(["evt_pd1", "evt_pd2"]);
    expect(page.payload).toMatchObject({
      condition: 'data.object.status = "past_due"',
      defaulted: true,
      from: new Date("2026-11-28T12:00:00Z"),
      to: now,
      // The event two days old is outside the default window: neither examined nor found.
      examined: 6,
      matched: 2,
    });
  });

  it("[console] ~ is a case-insensitive contains; != needs the path; exists and !exists; indexes and numbers", async () => {
    await seed();
    expect(ids(await search({ where: "repository.full_name ~ ACME/" }))).toEqual(["gh-acme"].sort());
    expect(ids(await search({ where: "data.object.status != past_due" }))).toEqual(["evt_act", "evt_inv"]);
    expect(ids(await search({ where: "repository exists" }))).toEqual(["gh-acme", "gh-other"]);
    expect(ids(await search({ where: "data.object !exists" }))).toEqual(["gh-acme", "gh-other"]);
    expect(ids(await search({ where: "data.object.amount_paid = 2000" }))).toEqual(["evt_inv"]);
    expect(ids(await search({ where: 'data.object.items.data[0]["price"].unit_amount = 2000' }))).toEqual([
      "evt_act",
      "evt_pd1",
      "evt_pd2",
    ]);
    expect(ids(await search({ where: "data.object.cancel_at = null" }))).toEqual(["evt_act", "evt_pd1", "evt_pd2"]);
  });

  it("[console] combines with the list's filters, pages by keyset, and counts only what those filters keep", async () => {
    await seed();
    const filtered = await search({
      where: "data.object.status ~ past",
      filter: { source: "stripe", type: "customer.subscription.updated" },
    });
    expect(filtered.payload).toMatchObject({ examined: 3, matched: 2 });
    const first = await search({ where: "data.object ~ cus_search", limit: 2 });
    const second = await search({ where: "data.object ~ cus_search", limit: 2, cursor: first.nextCursor });
    expect([...ids(first), ...ids(second)].sort()).toEqual(["evt_act", "evt_pd1", "evt_pd2"]);
    expect(second.nextCursor).toBeUndefined();
    expect(second.payload.matched).toBe(3);
  });

  it("[console] a window given as From and To is searched; over a week, or From after To, is refused in words", async () => {
    await seed();
    const old = await search({
      where: "data.object.status = past_due",
      filter: { from: "2026-11-27 00:00", to: "2026-11-27 23:00" },
    });
    expect(ids(old)).toEqual(["evt_old"]);
    expect(old.payload).toMatchObject({ defaulted: false, examined: 1, matched: 1 });
    await expect(search({ where: "a = b", filter: { from: "2026-11-01", to: "2026-11-29" } })).rejects.toThrow(
      "a payload search covers at most 7 days, and 2026-11-01T00:00:00.000Z to 2026-11-29T00:00:00.000Z is 28 days: narrow From and To",
    );
    await expect(search({ where: "a = b", filter: { from: "2026-11-29", to: "2026-11-28" } })).rejects.toThrow(
      "From must be before To",
    );
    await expect(search({ where: "a = b", filter: { from: "yesterday" } })).rejects.toBeInstanceOf(ZodError);
  });

  it("[console] a bad condition is a ValidationError naming the problem; user text is a bound value, never SQL", async () => {
    await seed();
    await expect(search({ where: "data.__proto__.x = 1" })).rejects.toThrow(
      'payload condition: "__proto__" cannot be part of a path',
    );
    await expect(search({ where: "data.object.status" })).rejects.toBeInstanceOf(ValidationError);
    const injected = await search({ where: "data.object.status = x' or 1=1 --" });
    expect(injected.rows).toEqual([]);
    expect(injected.payload).toMatchObject({ examined: 6, matched: 0 });
    expect(ids(await search({ where: `["data"]["object"].status = "past_due"` }))).toEqual(["evt_pd1", "evt_pd2"]);
  });

  it("[console] past its time budget the search stops and says to narrow the window, instead of hanging", async () => {
    // Enough bodies that parsing them all takes longer than the budget (one millisecond here).
    const body = JSON.stringify(stripeSubscriptionEvent({ eventId: "evt_bulk" }));
    await db.execute(sql`
      with n as (select g from generate_series(1, 5000) g),
      b as (
        insert into webhook_event_body (source, event_id, raw_body, headers)
        select 'stripe', 'evt_bulk_' || g, ${body}, '{}'::jsonb from n
      )
      insert into webhook_event_state (source, event_id, event_type, received_at, status)
      select 'stripe', 'evt_bulk_' || g, 'customer.subscription.updated', ${now.toISOString()}::timestamptz - interval '1 hour', 'settled'
      from n`);
    const err = await search({ where: "data.object.status = nothing_like_it" }, { timeoutMs: 1 }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(UnavailableError);
    expect((err as Error).message).toBe(
      "the payload search took longer than 0.001 s over 2026-11-28T12:00:00.000Z to 2026-11-29T12:00:00.000Z: " +
        "narrow the window (From and To), or choose a source or type",
    );
    // With its normal budget the same search answers, having read every body.
    expect((await search({ where: "data.object.status = nothing_like_it" })).payload).toMatchObject({
      examined: 5000,
      matched: 0,
    });
  });

  it("[console] needs events.read; the type filter offers the distinct types seen, bounded", async () => {
    await seed();
    await expect(searchPayloads(db, undefined, { where: "a = b" })).rejects.toBeInstanceOf(ForbiddenError);
    expect(await listEventTypes(db, support)).toEqual([
      "customer.subscription.updated",
      "invoice.paid",
      "issues.opened",
    ]);
    expect(await listEventTypes(db, support, 2)).toEqual(["customer.subscription.updated", "invoice.paid"]);
  });
});
