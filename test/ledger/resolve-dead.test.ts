import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { ZodError } from "zod";
import { ForbiddenError, type Actor } from "@/lib/roles";
import { ConflictError } from "@/lib/errors";
import { getEventDetail } from "@/lib/console/event-detail";
import { listEvents } from "@/lib/console/list-events";
import { resolveDeadEvents } from "@/lib/console/resolve-dead";
import { stripeInvoicePaidEvent } from "@/test/fixtures/stripe";
import { setupTestDb } from "../db";
import { claim, query } from "../worker/helpers";

const { db } = setupTestDb();
const ops: Actor = { id: "u-ops", email: "ops@example.com", role: "ops" };
const support: Actor = { id: "u-sup", email: "support@example.com", role: "support" };
const key = (eventId: string) => ({ source: "stripe", eventId });

async function seed() {
  for (const id of ["evt_d1", "evt_d2", "evt_f1"])
    await claim(db, "stripe", stripeInvoicePaidEvent({ eventId: id, invoiceId: `in_1${id}0000` }));
  await db.execute(sql`update webhook_event_state set status = 'dead', attempts = 8, last_error = 'permanent: no customer',
                       outcome = 'failed' where event_id in ('evt_d1', 'evt_d2')`);
  await db.execute(sql`update webhook_event_state set status = 'failed', attempts = 2 where event_id = 'evt_f1'`);
}

const rows = () =>
  query<{ event_id: string; status: string; resolution: string | null; resolution_note: string | null }>(
    db,
    sql`select event_id, status, resolution, resolution_note from webhook_event order by event_id`,
  );

describe("a person resolves or ignores dead events with a note", () => {
  it("[ledger] resolve settles the event with the note, who and when, and its audit row commits in the same transaction", async () => {
    await seed();
    const note = "Refunded by hand in the Stripe dashboard (ticket 4411)";
    expect(
      await resolveDeadEvents({ db, actor: ops, input: { keys: [key("evt_d1")], resolution: "resolved", note } }),
    ).toEqual({ resolved: 1, notDead: [] });
    const [event] = await query<Record<string, unknown>>(
      db,
      sql`select status, outcome, resolution, resolution_note, resolved_by, settled_at is not null as settled,
                 resolved_at is not null as resolved, last_error, (select xmin::text from webhook_event_state s where s.event_id = webhook_event.event_id) as tx
          from webhook_event where event_id = 'evt_d1'`,
    );
    expect(event).toMatchObject({
      status: "settled",
      outcome: "failed",
      resolution: "resolved",
      resolution_note: note,
      resolved_by: ops.email,
      settled: true,
      resolved: true,
      last_error: "permanent: no customer",
    });
    const audit = await query<Record<string, unknown>>(
      db,
      sql`select action, target, result, actor_email, detail, xmin::text as tx from audit_log`,
    );
    expect(audit).toEqual([
      {
        action: "events.resolve-dead",
        target: "event:stripe/evt_d1",
        result: "ok",
        actor_email: ops.email,
        detail: { resolution: "resolved", note, selected: 1, keys: ["stripe/evt_d1"], count: 1, notDead: [] },
        tx: event!.tx,
      },
    ]);
    // No attempt row: nothing ran.
    expect(await query(db, sql`select count(*)::int as n from webhook_attempt`)).toEqual([{ n: 0 }]);
    const detail = await getEventDetail(db, support, key("evt_d1"), async () => undefined);
    expect(detail.event).toMatchObject({ resolution: "resolved", resolutionNote: note, resolvedBy: ops.email });
    expect(detail.event.resolvedAt).toBeInstanceOf(Date);
    const { rows: listed } = await listEvents(db, support, { filter: { q: "evt_d1" } });
    expect(listed).toMatchObject([
      { eventId: "evt_d1", status: "settled", resolution: "resolved", resolutionNote: note },
    ]);
  });

  it("[ledger] ignore records 'ignored' for every selected key, once each", async () => {
    await seed();
    const input = {
      keys: [key("evt_d1"), key("evt_d2"), key("evt_d1")],
      resolution: "ignored" as const,
      note: "test data",
    };
    expect(await resolveDeadEvents({ db, actor: ops, input })).toEqual({ resolved: 2, notDead: [] });
    expect(await rows()).toEqual([
      { event_id: "evt_d1", status: "settled", resolution: "ignored", resolution_note: "test data" },
      { event_id: "evt_d2", status: "settled", resolution: "ignored", resolution_note: "test data" },
      { event_id: "evt_f1", status: "failed", resolution: null, resolution_note: null },
    ]);
    const [audit] = await query<{ action: string; target: string }>(db, sql`select action, target from audit_log`);
    expect(audit).toEqual({ action: "events.ignore-dead", target: "events" });
  });

  it("[ledger] keys no longer dead are skipped and reported; when none is dead, nothing changes (ConflictError)", async () => {
    await seed();
    const note = "fixed upstream";
    const mixed = { keys: [key("evt_d1"), key("evt_f1"), key("evt_gone")], resolution: "resolved" as const, note };
    expect(await resolveDeadEvents({ db, actor: ops, input: mixed })).toEqual({
      resolved: 1,
      notDead: [key("evt_f1"), key("evt_gone")],
    });
    // evt_d1 is settled now: deciding it again is a conflict, and the first decision stands.
    const again = resolveDeadEvents({
      db,
      actor: ops,
      input: { keys: [key("evt_d1")], resolution: "ignored", note: "x" },
    });
    await expect(again).rejects.toBeInstanceOf(ConflictError);
    await expect(again).rejects.toThrow("event evt_d1 is no longer dead");
    expect((await rows()).map((r) => [r.event_id, r.status, r.resolution])).toEqual([
      ["evt_d1", "settled", "resolved"],
      ["evt_d2", "dead", null],
      ["evt_f1", "failed", null],
    ]);
    expect(
      await query(db, sql`select action, result, detail->>'notDead' as skipped from audit_log order by id`),
    ).toEqual([
      { action: "events.resolve-dead", result: "ok", skipped: '["stripe/evt_f1", "stripe/evt_gone"]' },
      { action: "events.ignore-dead", result: "error", skipped: null },
    ]);
  });

  it("[ledger] support may not resolve: ForbiddenError, audited as refused, nothing changed", async () => {
    await seed();
    const input = { keys: [key("evt_d1")], resolution: "resolved" as const, note: "done" };
    await expect(resolveDeadEvents({ db, actor: support, input })).rejects.toBeInstanceOf(ForbiddenError);
    expect(await query(db, sql`select action, result from audit_log`)).toEqual([
      { action: "events.resolve-dead", result: "refused" },
    ]);
    expect((await rows())[0]).toMatchObject({ status: "dead", resolution: null });
  });

  it("[ledger] the note is required (1–500 characters) and a decision covers 1–500 keys", async () => {
    await seed();
    const bad = [
      { keys: [key("evt_d1")], resolution: "resolved", note: "   " },
      { keys: [key("evt_d1")], resolution: "resolved", note: "x".repeat(501) },
      { keys: [key("evt_d1")], resolution: "resolved", note: "nul \u0000" },
      { keys: [], resolution: "resolved", note: "ok" },
      { keys: Array.from({ length: 501 }, (_, i) => key(`evt_${i}`)), resolution: "resolved", note: "ok" },
      { keys: [key("evt_d1")], resolution: "retried", note: "ok" },
    ];
    for (const input of bad)
      await expect(
        resolveDeadEvents({ db, actor: ops, input: input as Parameters<typeof resolveDeadEvents>[0]["input"] }),
      ).rejects.toBeInstanceOf(ZodError);
    expect(
      await resolveDeadEvents({
        db,
        actor: ops,
        input: { keys: [key("evt_d1")], resolution: "resolved", note: "x".repeat(500) },
      }),
    ).toEqual({ resolved: 1, notDead: [] });
  });
});
