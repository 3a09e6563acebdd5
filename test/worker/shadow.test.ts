import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { duplicateReport, formatDuplicateReport, parseSince } from "@/lib/console/duplicates";
import type { ClaimInput } from "@/lib/intake/claim";
import { claimOne } from "@/test/claim";
import { stripeInvoicePaidEvent, stripeSubscriptionEvent } from "@/test/fixtures/stripe";
import { setupTestDb } from "../db";
import { drain, query } from "./helpers";

const { db } = setupTestDb();

const paid = (eventId: string, claimMode: "enforce" | "shadow"): ClaimInput => ({
  source: "stripe",
  eventId,
  eventType: "invoice.paid",
  rawBody: JSON.stringify(stripeInvoicePaidEvent({ eventId, customerId: "cus_Shadow00001", amount: 500 })),
  headers: {},
  claimMode,
});

describe("CLAIM_MODE=shadow", () => {
  it("[shadow] a duplicate of a settled event is processed again, as before the ledger, and recorded as would-have-been-skipped", async () => {
    await claimOne(db, paid("evt_sh1", "shadow"));
    await drain(db);
    expect(await claimOne(db, paid("evt_sh1", "shadow"))).toEqual({ claimed: false, reprocessed: true });
    await drain(db);
    // The delta ran twice: exactly the double-processing shadow mode is there to measure.
    expect(await query(db, sql`select amount_paid::text, invoice_count from customer_total`)).toEqual([
      { amount_paid: "1000", invoice_count: 2 },
    ]);
    expect(await query(db, sql`select claimed, reprocessed from webhook_delivery order by id`)).toEqual([
      { claimed: true, reprocessed: false },
      { claimed: false, reprocessed: true },
    ]);
    expect(await query(db, sql`select count(*)::int as n from webhook_event`)).toEqual([{ n: 1 }]);
  });

  it("[shadow] enforce mode (the default) skips the same duplicate", async () => {
    await claimOne(db, paid("evt_en1", "enforce"));
    await drain(db);
    expect(await claimOne(db, paid("evt_en1", "enforce"))).toEqual({ claimed: false, reprocessed: false });
    await drain(db);
    expect(await query(db, sql`select amount_paid::text from customer_total`)).toEqual([{ amount_paid: "500" }]);
  });

  it("[shadow] the duplicate report gives the rate per source and type over a window", async () => {
    for (const id of ["evt_r1", "evt_r2", "evt_r1", "evt_r1"]) await claimOne(db, paid(id, "enforce"));
    const sub = stripeSubscriptionEvent({ eventId: "evt_rs" });
    await claimOne(db, {
      source: "stripe",
      eventId: "evt_rs",
      eventType: "customer.subscription.updated",
      rawBody: JSON.stringify(sub),
      headers: {},
    });
    const window = { since: parseSince("1h"), until: new Date(Date.now() + 1000) };
    const rows = await duplicateReport(db, window);
    expect(rows).toEqual([
      { source: "stripe", eventType: "invoice.paid", deliveries: 4, duplicates: 2, reprocessed: 0, rate: 0.5 },
      {
        source: "stripe",
        eventType: "customer.subscription.updated",
        deliveries: 1,
        duplicates: 0,
        reprocessed: 0,
        rate: 0,
      },
    ]);
    expect(formatDuplicateReport(rows, window)).toMatch(/all\s+5\s+2\s+40\.00 %/);
    expect(await duplicateReport(db, { since: parseSince("2h"), until: parseSince("1h") })).toEqual([]);
  });

  it("[shadow] the report counts every arrival of a flood, past the rows an event keeps", async () => {
    for (let n = 0; n < 16; n++) await claimOne(db, paid("evt_flood", "enforce"));
    expect(await query(db, sql`select count(*)::int as n from webhook_delivery`)).toEqual([{ n: 11 }]);
    const rows = await duplicateReport(db, { since: parseSince("1h"), until: new Date(Date.now() + 1000) });
    expect(rows).toEqual([
      { source: "stripe", eventType: "invoice.paid", deliveries: 16, duplicates: 15, reprocessed: 0, rate: 15 / 16 },
    ]);
  });

  it("[shadow] --since accepts 24h, 90m, 7d and ISO times and explains anything else", () => {
    const now = new Date("2026-11-29T12:00:00Z");
    expect(parseSince("24h", now).toISOString()).toBe("2026-11-28T12:00:00.000Z");
    expect(parseSince("90m", now).toISOString()).toBe("2026-11-29T10:30:00.000Z");
    expect(parseSince("7d", now).toISOString()).toBe("2026-11-22T12:00:00.000Z");
    expect(parseSince("2026-11-01T10:00:00Z").toISOString()).toBe("2026-11-01T10:00:00.000Z");
    expect(() => parseSince("yesterday")).toThrow('--since wants 24h, 90m, 7d or an ISO time, not "yesterday"');
  });
});
