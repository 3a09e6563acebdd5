import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { ForbiddenError, type Actor } from "@/lib/roles";
import { countRequeueable, requeueMatching } from "@/lib/console/requeue-matching";
import { ConflictError } from "@/lib/errors";
import { stripeInvoicePaidEvent, stripeSubscriptionEvent } from "@/test/fixtures/stripe";
import { connectPostgres, rowsOf } from "@/db/client";
import { setupTestDb, testDatabaseUrl } from "../db";
import { claim, drain, query, testSettings } from "../worker/helpers";

const { db } = setupTestDb();
const ops: Actor = { id: "u2", email: "ops@example.com", role: "ops" };
const support: Actor = { id: "u1", email: "support@example.com", role: "support" };

async function seed() {
  for (let i = 0; i < 4; i++)
    await claim(db, "stripe", stripeInvoicePaidEvent({ eventId: `evt_i${i}`, invoiceId: `in_1Bulk${i}0000` }));
  await claim(db, "stripe", stripeSubscriptionEvent({ eventId: "evt_s0", subscriptionId: "sub_1Bulk000001" }));
  await db.execute(
    sql`update webhook_event_state set status = 'dead', attempts = 8, last_error = 'boom' where event_id in ('evt_i0', 'evt_i1', 'evt_s0')`,
  );
  await db.execute(sql`update webhook_event_state set status = 'failed', attempts = 2 where event_id = 'evt_i2'`);
}

describe("bulk requeue", () => {
  it("[console] the count is planned with the filter's values each time, never kept as a cached generic plan", async () => {
    await seed();
    // One connection, so the statements it prepared are the ones pg_prepared_statements shows.
    const one = connectPostgres(testDatabaseUrl(), { max: 1 });
    try {
      // More calls than PostgreSQL's five custom plans before it would keep a generic one.
      for (let i = 0; i < 7; i++) expect(await countRequeueable(one.db, ops, { type: ["invoice.paid"] })).toBe(3);
      await one.db.execute(sql`select ${1}::int as prepared_probe`); // prepared, as every statement not planned per call
      const prepared = rowsOf<{ statement: string }>(
        await one.db.execute(sql`select statement from pg_prepared_statements`),
      ).map((r) => r.statement);
      expect(prepared.some((s) => s.includes("prepared_probe"))).toBe(true);
      expect(prepared.filter((s) => s.includes("select count(*)::int as n from (select 1 from"))).toEqual([]);
    } finally {
      await one.close();
    }
  });

  it("[console] counts the filtered failed/dead set, requeues exactly it, and each gets a requeue attempt by the actor", async () => {
    await seed();
    const filter = { type: ["invoice.paid"] };
    expect(await countRequeueable(db, ops, filter)).toBe(3);
    expect(await requeueMatching({ db, actor: ops, input: { filter, confirmed: 3 } })).toEqual({ requeued: 3 });
    const rows = await query<{ event_id: string; status: string }>(
      db,
      sql`select event_id, status from webhook_event order by event_id`,
    );
    expect(rows).toEqual([
      { event_id: "evt_i0", status: "claimed" },
      { event_id: "evt_i1", status: "claimed" },
      { event_id: "evt_i2", status: "claimed" },
      { event_id: "evt_i3", status: "claimed" },
      { event_id: "evt_s0", status: "dead" },
    ]);
    await drain(db, testSettings());
    const attempts = await query<{ event_id: string; trigger: string; actor: string }>(
      db,
      sql`select event_id, trigger, actor from webhook_attempt where trigger = 'requeue' order by event_id`,
    );
    expect(attempts).toEqual(
      ["evt_i0", "evt_i1", "evt_i2"].map((event_id) => ({ event_id, trigger: "requeue", actor: "ops@example.com" })),
    );
    const [audit] = await query<{ action: string; result: string; requeued: number }>(
      db,
      sql`select action, result, (detail->>'requeued')::int as requeued from audit_log`,
    );
    // The row says how many moved: the audit page reads it out ("requeued 3 events matching …").
    expect(audit).toEqual({ action: "events.requeue-bulk", result: "ok", requeued: 3 });
  });

  it("[console] a set that grew past the confirmed count changes nothing", async () => {
    await seed();
    await expect(requeueMatching({ db, actor: ops, input: { filter: {}, confirmed: 2 } })).rejects.toBeInstanceOf(
      ConflictError,
    );
    const [row] = await query<{ n: number }>(
      db,
      sql`select count(*)::int as n from webhook_event where status in ('failed', 'dead')`,
    );
    expect(row?.n).toBe(4);
  });

  it("[console] support may neither count nor requeue, and the refusal is audited", async () => {
    await seed();
    await expect(countRequeueable(db, support, {})).rejects.toBeInstanceOf(ForbiddenError);
    await expect(requeueMatching({ db, actor: support, input: { filter: {}, confirmed: 4 } })).rejects.toBeInstanceOf(
      ForbiddenError,
    );
    // The refused requeue is on the record, exactly once (the count is a read: refused, not audited).
    expect(await query(db, sql`select action, actor_email, result from audit_log order by id`)).toEqual([
      { action: "events.requeue-bulk", actor_email: support.email, result: "refused" },
    ]);
    const [row] = await query<{ n: number }>(
      db,
      sql`select count(*)::int as n from webhook_event where status in ('failed', 'dead')`,
    );
    expect(row?.n).toBe(4);
  });
});
