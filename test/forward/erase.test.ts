import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { eraseSubjectAs } from "@/lib/retention/erase";
import { stripeInvoicePaidEvent } from "@/test/fixtures/stripe";
import { setupTestDb } from "../db";
import { declareBilling } from "./console-helpers";
import { claim, drain, query } from "../worker/helpers";

const { db } = setupTestDb();
const CUSTOMER = "cus_ForwardErase01";

describe("erasure and forwards", () => {
  it("removes the subject's forwards not yet sent and clears what destinations answered about it", async () => {
    await declareBilling(db, "paused");
    await claim(db, "stripe", stripeInvoicePaidEvent({ eventId: "evt_fe_sent", customerId: CUSTOMER }));
    await claim(db, "stripe", stripeInvoicePaidEvent({ eventId: "evt_fe_pending", customerId: CUSTOMER }));
    await claim(db, "stripe", stripeInvoicePaidEvent({ eventId: "evt_fe_other", customerId: "cus_Other0002" }));
    await drain(db);
    // One was sent before the request, and its destination echoed the customer id in its answer.
    await db.execute(sql`update forward set status = 'sent', sent_at = now() where event_id = 'evt_fe_sent'`);
    await db.execute(sql`
      insert into forward_attempt (forward_id, destination, number, started_at, duration_ms, status_code, response_excerpt, error)
      select id, destination, 1, now(), 5, 200, ${`{"ok":true,"customer":"${CUSTOMER}"}`}, null from forward
      where event_id = 'evt_fe_sent'`);
    await eraseSubjectAs({ db, who: "cli:dpo", input: { subject: CUSTOMER } });
    const rows = await query<{ event_id: string; status: string }>(
      db,
      sql`select event_id, status from forward order by event_id`,
    );
    expect(rows).toEqual([
      { event_id: "evt_fe_other", status: "pending" },
      { event_id: "evt_fe_sent", status: "sent" },
    ]);
    const excerpts = await query<{ response_excerpt: string | null }>(
      db,
      sql`select response_excerpt from forward_attempt`,
    );
    expect(excerpts).toEqual([{ response_excerpt: null }]);
  });
});
