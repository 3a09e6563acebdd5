import { readFileSync } from "node:fs";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { rowsOf } from "@/db/client";
import { QUICKSTART_TUNING } from "@/lib/demo/demo-file";
import { signDelivery } from "@/lib/demo/sign";
import { demoTraffic } from "@/lib/demo/traffic";
import { receiveWebhook } from "@/lib/receiver/receive";
import { setupTestDb } from "../db";
import { TEST_SECRETS } from "../sign";
import { depsFor } from "../receiver/harness";
import { drain } from "../worker/helpers";

const { db } = setupTestDb();

interface Invoice {
  id: string;
  charge: string;
  payment_intent: string;
  number: string;
  subscription: string;
  period_start: number;
  period_end: number;
  status_transitions: { paid_at: number };
  lines: { data: { period: { start: number; end: number } }[] };
}
interface StripeEvent {
  id: string;
  type: string;
  data: { object: Record<string, unknown> };
}

const stripeEvents = () =>
  demoTraffic()
    .filter((d) => d.source === "stripe")
    .map((d) => JSON.parse(d.body) as StripeEvent);

describe("demo traffic", () => {
  it("[demo] every demo delivery is signed so the real receiver accepts it, duplicates included", async () => {
    const deps = depsFor(db);
    const outcomes: Record<string, number> = {};
    for (const d of demoTraffic()) {
      const headers = signDelivery(d.source, d.body, TEST_SECRETS[d.source], { id: d.id, headers: d.headers });
      const { response, outcome } = await receiveWebhook(
        d.source,
        new Request(`http://demo/api/webhooks/${d.source}`, { method: "POST", headers, body: d.body }),
        deps,
      );
      expect(response.status, `${d.source} ${d.note}`).toBe(200);
      outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
    }
    expect(outcomes.duplicate).toBeGreaterThanOrEqual(4);
    await drain(db);
    const statuses = Object.fromEntries(
      rowsOf<{ status: string; n: number }>(
        await db.execute(sql`select status, count(*)::int as n from webhook_event group by 1`),
      ).map((r) => [r.status, r.n]),
    );
    expect(statuses.dead).toBe(2); // the subscription event with no items, the undated order update
    // Permanent errors: dead at their first attempt, whatever WORKER_MAX_ATTEMPTS allows.
    expect(
      rowsOf(
        await db.execute(sql`select attempts, left(last_error, 10) as error from webhook_event where status = 'dead'`),
      ),
    ).toEqual([
      { attempts: 1, error: "permanent:" },
      { attempts: 1, error: "permanent:" },
    ]);
    expect(statuses.settled).toBeGreaterThan(30);
    const stale = rowsOf<{ n: number }>(
      await db.execute(sql`select count(*)::int as n from entity_transition where outcome = 'stale'`),
    );
    expect(stale[0]?.n).toBeGreaterThanOrEqual(5); // 3 reordered Stripe updates + 2 Paddle

    // "Charged twice?" on any demo charge finds one event; the doubled one shows its two deliveries.
    const charges = stripeEvents()
      .filter((e) => e.type === "invoice.paid")
      .map((e) => (e.data.object as unknown as Invoice).charge);
    const found = rowsOf<{ charge: string; events: number; deliveries: number }>(
      await db.execute(sql`
        select c.charge, count(distinct e.event_id)::int as events, count(d.id)::int as deliveries
        from unnest(${`{${[...new Set(charges)].join(",")}}`}::text[]) as c(charge)
        join webhook_event e on e.subject_ids @> array[c.charge]
        join webhook_delivery d on d.source = e.source and d.event_id = e.event_id
        group by c.charge`),
    );
    expect(found.map((f) => f.events)).toEqual(found.map(() => 1));
    expect(found.map((f) => f.deliveries).sort()).toEqual([...found.map(() => 1).slice(1), 2]);
  });

  it("[demo] a believable morning: each paid invoice its own charge, intent and number, one delivered twice", () => {
    const paid = stripeEvents().filter((e) => e.type === "invoice.paid");
    const times = new Map<string, number>();
    for (const e of paid) times.set(e.id, (times.get(e.id) ?? 0) + 1);
    expect([...times.values()].filter((n) => n > 1)).toEqual([2]);
    const invoices = [...new Map(paid.map((e) => [e.id, e.data.object as unknown as Invoice])).values()];
    expect(invoices.length).toBeGreaterThanOrEqual(6);
    for (const field of ["id", "charge", "payment_intent", "number"] as const)
      expect(new Set(invoices.map((i) => i[field])).size, field).toBe(invoices.length);
  });

  it("[demo] periods agree: each invoice bills its subscription's current period, paid within it, none overlapping", () => {
    const events = stripeEvents();
    const invoices = events.filter((e) => e.type === "invoice.paid").map((e) => e.data.object as unknown as Invoice);
    for (const inv of invoices) {
      expect(inv.period_end, inv.id).toBeGreaterThan(inv.period_start);
      const line = inv.lines.data[0]!.period;
      expect(line.end, inv.id).toBeGreaterThan(line.start);
      expect(inv.status_transitions.paid_at, inv.id).toBeGreaterThanOrEqual(line.start);
      expect(inv.status_transitions.paid_at, inv.id).toBeLessThan(line.end);
      const periods = events
        .filter((e) => e.type.startsWith("customer.subscription.") && e.data.object.id === inv.subscription)
        .map((e) => [e.data.object.current_period_start, e.data.object.current_period_end]);
      expect(periods.length, inv.id).toBeGreaterThan(0);
      for (const p of periods) expect(p, inv.id).toEqual([line.start, line.end]);
    }
    const bySubscription = new Map<string, Invoice[]>();
    for (const inv of new Map(invoices.map((i) => [i.id, i])).values())
      bySubscription.set(inv.subscription, [...(bySubscription.get(inv.subscription) ?? []), inv]);
    for (const [sub, list] of bySubscription) {
      const sorted = list.map((i) => i.lines.data[0]!.period).sort((a, b) => a.start - b.start);
      for (let k = 1; k < sorted.length; k++) expect(sorted[k]!.start, sub).toBeGreaterThanOrEqual(sorted[k - 1]!.end);
    }
  });

  it("[demo] the README's quick start says what the demo does: its dead events, its double payment, its attempts", () => {
    const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
    const from = readme.indexOf("## Quick start");
    const quick = readme.slice(from, readme.indexOf("\n## ", from + 1)).replace(/\s+/g, " ");
    const words = ["no", "one", "two", "three", "four"];
    const dead = demoTraffic().filter((d) => d.note.includes("fails until dead")).length;
    expect(quick).toContain(`${words[dead]} events no handler can read`);
    expect(quick).toContain("dead at its first attempt");
    expect(quick).toContain(`${QUICKSTART_TUNING.WORKER_MAX_ATTEMPTS} attempts`);
    expect(quick).toContain("one of them delivered twice");
    expect(quick).not.toContain("one event that fails until it is dead");
  });
});
