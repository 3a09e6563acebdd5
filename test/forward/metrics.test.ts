import { describe, expect, it } from "vitest";
import { createDbGaugeReader, createLedgerMetrics } from "@/lib/metrics";
import { stripeInvoicePaidEvent } from "@/test/fixtures/stripe";
import { setupTestDb } from "../db";
import { declareBilling } from "./console-helpers";
import { claim, drain } from "../worker/helpers";

const { db } = setupTestDb();

describe("forward metrics", () => {
  it("[ops] the scrape shows each destination's forwards not yet sent", async () => {
    await declareBilling(db, "paused");
    for (const id of ["evt_m1", "evt_m2"]) await claim(db, "stripe", stripeInvoicePaidEvent({ eventId: id }));
    await drain(db);
    const metrics = createLedgerMetrics();
    metrics.useDatabase(createDbGaugeReader({ query: (q) => db.execute(q) }));
    metrics.forwards.inc({ destination: "billing", outcome: "sent" });
    const { body } = await metrics.render();
    expect(body).toContain('webhook_forward_backlog{destination="billing"} 2');
    expect(body).toContain('webhook_forwards_total{destination="billing",outcome="sent"} 1');
  });
});
