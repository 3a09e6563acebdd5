import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { handlerLookup } from "@/lib/handlers/registry";
import { stripeSubscriptionEvent } from "@/test/fixtures/stripe";
import { sqlState } from "@/lib/errors";
import { seedEvents } from "@/test/seed-events";
import { setupTestDb } from "../db";
import { claim, drain, query, testSettings } from "../worker/helpers";

const { db } = setupTestDb();

/** Each body row's version (xmin) and place (ctid): both change whenever the row is rewritten. */
const bodyVersions = () =>
  query<{ event_id: string; v: string }>(
    db,
    sql`select event_id, xmin::text || ctid::text as v from webhook_event_body order by event_id`,
  );
const stateVersions = () =>
  query<{ event_id: string; v: string }>(
    db,
    sql`select event_id, xmin::text || ctid::text as v from webhook_event_state order by event_id`,
  );

describe("one event, two rows (drizzle/0022_event_state.sql)", () => {
  it("[ledger] the body is written once, at the claim: leases, settles and failures rewrite only the state row", async () => {
    await claim(db, "stripe", stripeSubscriptionEvent({ eventId: "evt_split_ok", subscriptionId: "sub_Split0001" }));
    const bodies = await bodyVersions();
    const states = await stateVersions();
    expect(bodies.map((b) => b.event_id)).toEqual(["evt_split_ok"]);
    await drain(db);
    // A source no process knows yet: failed, backed off, then dead, three leases and three failures.
    await claim(db, "stripe", stripeSubscriptionEvent({ eventId: "evt_split_fail", subscriptionId: "sub_Split0002" }));
    const withFailing = await bodyVersions();
    await drain(db, testSettings({ handlers: handlerLookup(undefined, () => undefined) }));

    expect(await bodyVersions()).toEqual(withFailing);
    expect(withFailing.find((b) => b.event_id === "evt_split_ok")).toEqual(bodies[0]);
    expect((await stateVersions()).find((s) => s.event_id === "evt_split_ok")).not.toEqual(states[0]);
    expect(await query(db, sql`select event_id, status, attempts from webhook_event order by event_id`)).toEqual([
      { event_id: "evt_split_fail", status: "dead", attempts: 3 },
      { event_id: "evt_split_ok", status: "settled", attempts: 1 },
    ]);
  });

  it("[ledger] the webhook_event view reads both halves as one row, and refuses writes: the tables are the one path", async () => {
    await seedEvents(
      db,
      "source, event_id, event_type, raw_body, headers, subject_ids, status, last_error",
      sql`values ('stripe', 'evt_view', 'invoice.paid', '{"id":"evt_view"}', '{}', '{cus_View0001}', 'dead', 'by hand')`,
    );
    expect(
      await query(
        db,
        sql`select status, last_error, attempts, via, raw_body, subject_ids from webhook_event where event_id = 'evt_view'`,
      ),
    ).toEqual([
      {
        status: "dead",
        last_error: "by hand",
        attempts: 0,
        via: "provider",
        raw_body: '{"id":"evt_view"}',
        subject_ids: ["cus_View0001"],
      },
    ]);
    for (const write of [
      sql`insert into webhook_event (source, event_id, event_type, raw_body, headers) values ('stripe', 'e', 't', '{}', '{}')`,
      sql`update webhook_event set status = 'settled' where event_id = 'evt_view'`,
      sql`delete from webhook_event where event_id = 'evt_view'`,
    ]) {
      const refused = await db.execute(write).catch((err: unknown) => err);
      expect(sqlState(refused)).toBe("55000");
    }
  });

  it("[ledger] a claim writes both halves in one statement, and a duplicate neither", async () => {
    const event = stripeSubscriptionEvent({ eventId: "evt_split_dup", subscriptionId: "sub_Split0003" });
    expect(await claim(db, "stripe", event)).toBe(true);
    expect(await claim(db, "stripe", event)).toBe(false);
    expect(
      await query(
        db,
        sql`select b.event_id, s.event_type, s.status from webhook_event_body b
            join webhook_event_state s on s.source = b.source and s.event_id = b.event_id`,
      ),
    ).toEqual([{ event_id: "evt_split_dup", event_type: "customer.subscription.updated", status: "claimed" }]);
  });
});
