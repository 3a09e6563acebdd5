/**
 * Latency with one standalone worker (default settings) that starts idle and listening:
 * a steady inflow through `claimEvents` with the app's coalesced wake, and single events after idle.
 */
import { connectPostgres } from "@/db/client";
import type { ClaimInput } from "@/lib/intake/claim";
import { claimOne } from "@/test/claim";
import { extractSubjectIds } from "@/lib/ledger/subjects";
import { PROVIDERS } from "@/lib/providers";
import { coalesce, WAKE_CHANNEL } from "@/lib/worker/wake";
import { stripeSubscriptionEvent } from "@/lib/samples/stripe";
import {
  connect,
  deadlockNote,
  ledgerBusy,
  rollbackNote,
  seedShape,
  sleep,
  verifyLedger,
  waitIdle,
  withFreshDb,
  type LedgerCheck,
} from "./worker-db";
import { startWorker, stopChild } from "./worker-procs";

export interface Percentiles {
  n: number;
  p50: number;
  p99: number;
  max: number;
}
export interface LatencyResult {
  main: Percentiles;
  /** claim → the attempt row's finished_at (clock_timestamp() at the settle statement, just before commit). */
  toFinished?: Percentiles;
  achievedPerSecond?: number;
  check: LedgerCheck;
  notes: string[];
}

/** Deliveries as the receiver would ingest them (describe + subject ids), with unique, scrambled versions. */
function deliveries(prefix: string, count: number): ClaimInput[] {
  const { subs, pVer } = seedShape(count);
  const base = Math.floor(Date.now() / 1000);
  return Array.from({ length: count }, (_, k) => {
    const key = String((k * 7919) % subs).padStart(7, "0");
    const eventId = `${prefix}${String(k).padStart(9, "0")}`;
    const payload = stripeSubscriptionEvent({
      eventId,
      subscriptionId: `sub_1BenchL${key}`,
      customerId: `cus_BenchL${key}`,
      created: base + ((k * pVer) % count),
      status: k % 7 === 0 ? "past_due" : "active",
    });
    const described = PROVIDERS.stripe.describe(payload, new Headers());
    if (!described.ok) throw new Error(described.reason);
    const { entity } = described.event;
    return {
      source: "stripe",
      eventId,
      eventType: described.event.eventType,
      rawBody: JSON.stringify(payload),
      headers: {},
      entityType: entity?.type,
      entityId: entity?.id,
      entityVersion: entity?.version,
      subjectIds: extractSubjectIds(payload),
    };
  });
}

async function percentiles(url: string, interval: string, from = "webhook_event e"): Promise<Percentiles> {
  const sql = connect(url);
  try {
    const [r] = await sql.unsafe<{ n: number; p50: number; p99: number; max: number }[]>(`
      select count(*)::int as n, percentile_cont(0.5) within group (order by ms) as p50,
             percentile_cont(0.99) within group (order by ms) as p99, max(ms) as max
      from (select extract(epoch from (${interval})) * 1000 as ms from ${from}) x`);
    if (!r) throw new Error("no latency rows");
    return { n: r.n, p50: Number(r.p50), p99: Number(r.p99), max: Number(r.max) };
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** `perSecond` events/s for `seconds` s, paced by a 5 ms timer; after each batch of claims, the coalesced wake. */
export async function inflowLatency(seconds: number, perSecond = 500): Promise<LatencyResult> {
  return withFreshDb(async (url) => {
    const total = Math.round(seconds * perSecond);
    const inputs = deliveries("evt_1BenchIn", total);
    const worker = startWorker(url, "worker");
    const handle = connectPostgres(url, { max: 10 });
    const sql = connect(url);
    try {
      await worker.started;
      await sleep(1000);
      let errors = 0;
      const wake = coalesce(
        () => handle.notify!(WAKE_CHANNEL),
        25,
        () => errors++,
      );
      const inflight: Promise<void>[] = [];
      let sent = 0;
      const t0 = performance.now();
      await new Promise<void>((resolve) => {
        const timer = setInterval(() => {
          const due = Math.min(total, Math.floor(((performance.now() - t0) / 1000) * perSecond));
          if (due > sent) {
            const batch = inputs.slice(sent, due);
            sent = due;
            inflight.push(
              Promise.all(batch.map((input) => claimOne(handle.db, input))).then(
                () => wake(),
                () => (errors++, wake()),
              ),
            );
          }
          if (sent >= total) {
            clearInterval(timer);
            resolve();
          }
        }, 5);
      });
      await Promise.all(inflight);
      const achievedPerSecond = total / ((performance.now() - t0) / 1000);
      await waitIdle(() => ledgerBusy(sql), { check: () => worker.assertAlive() });
      await stopChild(worker);
      const check = await verifyLedger(url);
      const notes = [
        ...(errors > 0 ? [`${errors} ingest/notify errors`] : []),
        ...rollbackNote(worker.output()),
        ...deadlockNote(check),
      ];
      return {
        main: await percentiles(url, "e.settled_at - e.received_at"),
        toFinished: await percentiles(
          url,
          "a.finished_at - e.received_at",
          "webhook_event e join webhook_attempt a on a.source = e.source and a.event_id = e.event_id and a.outcome <> 'failed'",
        ),
        achievedPerSecond,
        check,
        notes,
      };
    } finally {
      await stopChild(worker);
      await handle.close();
      await sql.end({ timeout: 5 });
    }
  });
}

/** `samples` times: one event + one NOTIFY, then 50–150 ms of quiet; latency = leased_at − received_at. */
export async function idleLatency(samples = 200): Promise<LatencyResult> {
  return withFreshDb(async (url) => {
    const inputs = deliveries("evt_1BenchIdle", samples);
    const worker = startWorker(url, "worker");
    const handle = connectPostgres(url, { max: 2 });
    const sql = connect(url);
    try {
      await worker.started;
      await sleep(1200);
      for (const input of inputs) {
        await claimOne(handle.db, input);
        await handle.notify!(WAKE_CHANNEL);
        await sleep(50 + Math.random() * 100);
      }
      await waitIdle(() => ledgerBusy(sql), { check: () => worker.assertAlive() });
      await stopChild(worker);
      const check = await verifyLedger(url);
      return {
        main: await percentiles(url, "e.leased_at - e.received_at"),
        check,
        notes: [...rollbackNote(worker.output()), ...deadlockNote(check)],
      };
    } finally {
      await stopChild(worker);
      await handle.close();
      await sql.end({ timeout: 5 });
    }
  });
}
