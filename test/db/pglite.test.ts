import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectPglite, rowsOf, type DbHandle } from "@/db/client";
import { migratePglite } from "@/db/migrate";
import { claimOne } from "@/test/claim";
import { requeueEvent } from "@/lib/console/requeue";
import { createWorker } from "@/lib/worker/run";
import { stripeInvoicePaidEvent, stripeSubscriptionEvent } from "@/test/fixtures/stripe";
import { testSettings } from "../worker/helpers";

let handle: DbHandle;
beforeAll(async () => {
  handle = await connectPglite("memory://");
  await migratePglite(handle);
}, 180_000);
afterAll(async () => handle.close());

describe("embedded database (PGlite)", () => {
  it("[pglite] the claim, a polling-only worker and the version guard behave as on Postgres", async () => {
    const { db } = handle;
    const input = (eventId: string, body: unknown, eventType: string) => ({
      source: "stripe" as const,
      eventId,
      eventType,
      rawBody: JSON.stringify(body),
      headers: {},
      subjectIds: ["cus_Pglite00001", 'odd"id'],
    });
    expect(
      await claimOne(
        db,
        input(
          "evt_p1",
          stripeInvoicePaidEvent({ eventId: "evt_p1", customerId: "cus_Pglite00001", amount: 700 }),
          "invoice.paid",
        ),
      ),
    ).toEqual({ claimed: true, reprocessed: false });
    expect(
      await claimOne(
        db,
        input(
          "evt_p1",
          stripeInvoicePaidEvent({ eventId: "evt_p1", customerId: "cus_Pglite00001", amount: 700 }),
          "invoice.paid",
        ),
      ),
    ).toEqual({ claimed: false, reprocessed: false });
    await claimOne(
      db,
      input(
        "evt_s2",
        stripeSubscriptionEvent({ eventId: "evt_s2", created: 20, status: "active" }),
        "customer.subscription.updated",
      ),
    );
    await claimOne(
      db,
      input(
        "evt_s1",
        stripeSubscriptionEvent({ eventId: "evt_s1", created: 10, status: "past_due" }),
        "customer.subscription.updated",
      ),
    );
    // No LISTEN on PGlite: the worker finds the work by polling alone.
    const worker = createWorker({ getDb: async () => db, settings: testSettings({ pollMs: 30 }) });
    worker.start();
    try {
      const until = Date.now() + 10_000;
      for (;;) {
        const [row] = rowsOf<{ n: number }>(
          await db.execute(sql`select count(*)::int as n from webhook_event where status <> 'settled'`),
        );
        if (row?.n === 0 || Date.now() > until) break;
        await new Promise((r) => setTimeout(r, 30));
      }
    } finally {
      await worker.stop();
    }
    expect(rowsOf(await db.execute(sql`select amount_paid::int as amount, invoice_count from customer_total`))).toEqual(
      [{ amount: 700, invoice_count: 1 }],
    );
    expect(rowsOf(await db.execute(sql`select status, updated_by_event from subscription`))).toEqual([
      { status: "active", updated_by_event: "evt_s2" },
    ]);
    expect(
      rowsOf(
        await db.execute(
          sql`select subject_ids, payload is null as no_copy, jsonb_typeof(raw_body::jsonb) as t
              from webhook_event where event_id = 'evt_p1'`,
        ),
      ),
    ).toEqual([{ subject_ids: ["cus_Pglite00001", 'odd"id'], no_copy: true, t: "object" }]);
    await expect(
      requeueEvent({
        db,
        actor: { id: "u1", email: "ops@example.com", role: "ops" },
        input: { source: "stripe", eventId: "evt_p1" },
      }),
    ).rejects.toThrow("is settled");
  });
});
