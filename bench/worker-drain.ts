/** Drain scenarios: our standalone workers and the pgbench one-transaction-per-event reference. */
import {
  backendCpu,
  connect,
  deadlockNote,
  ledgerBusy,
  rollbackNote,
  seedClaimed,
  verifyLedger,
  waitIdle,
  withFreshDb,
  type LedgerCheck,
} from "./worker-db";
import { runPgbench } from "./worker-pgbench";
import { startWorker, stopChild, type Child } from "./worker-procs";

export interface DrainResult {
  events: number;
  seconds: number;
  perSecond: number;
  check?: LedgerCheck;
  /**
   * CPU per event in ms, robust to whatever else shares the machine: the driving client(s) (worker
   * processes, pgbench, graphile-worker) and the Postgres backends serving them.
   */
  cpu?: { client: number; postgres: number };
  /** Free-form facts worth a footnote (rollbacks, start-up gap, …). */
  notes: string[];
}

const rate = (events: number, ms: number) => ({ seconds: ms / 1000, perSecond: events / (ms / 1000) });

/**
 * `procs` standalone worker processes with `loops` loops each (undefined: the default WORKER_CONCURRENCY).
 * The clock starts when the first worker prints "started:" (tsx start-up is not counted) and stops when
 * no event is claimed, failed or processing.
 *
 * `warmup`: seed that many more events and measure only what comes after them: the clock, the CPU and the
 * count start at the first poll that finds at least `warmup` events settled. A worker that has run for a while
 * no longer pays V8's compilation of its hot code (about a fifth of a cold 20,000-event drain's worker CPU, `perf`),
 * nor what the first batches pay once (new entities' guard rows, the directory cache filling); the cold figure keeps it all.
 */
export async function drainWithWorkers(
  n: number,
  procs: number,
  loops: number | undefined,
  batchSize: number,
  opts: { warmup?: number } = {},
): Promise<DrainResult> {
  const warmup = opts.warmup ?? 0;
  return withFreshDb(async (url, name) => {
    await seedClaimed(url, n + warmup);
    const tuning: Record<string, number> = { WORKER_BATCH_SIZE: batchSize };
    if (loops !== undefined) tuning.WORKER_CONCURRENCY = loops;
    const env: Record<string, string> = { LEDGER_TUNING: JSON.stringify(tuning) };
    const workers: Child[] = Array.from({ length: procs }, (_, i) => startWorker(url, `worker ${i + 1}`, env));
    const sql = connect(url);
    try {
      const backends = backendCpu(sql, name);
      const clientCpu = () => workers.reduce((sum, w) => sum + (w.cpuSinceStarted() ?? NaN), 0);
      const starts = await Promise.all(workers.map((w) => w.started));
      // Where the measurement starts: the workers' start, or the end of the warm-up.
      let from: { t: number; settled: number; client: number; postgres: number } | undefined =
        warmup > 0 ? undefined : { t: Math.min(...starts), settled: 0, client: 0, postgres: 0 };
      const t1 = await waitIdle(() => ledgerBusy(sql), {
        check: () => workers.forEach((w) => w.assertAlive()),
        onPoll: async () => {
          await backends.sample();
          if (from) return;
          const t = performance.now();
          const [row] = await sql<{ n: number }[]>`
            select count(*)::int as n from webhook_event_state where status = 'settled'`;
          if (row && row.n >= warmup) from = { t, settled: row.n, client: clientCpu(), postgres: backends.seconds() };
        },
      });
      await backends.sample();
      if (!from) throw new Error("the warm-up never ended before the drain did");
      const measured = n + warmup - from.settled;
      const cpu = {
        client: (1000 * (clientCpu() - from.client)) / measured,
        postgres: (1000 * (backends.seconds() - from.postgres)) / measured,
      };
      const codes = await Promise.all(workers.map((w) => stopChild(w)));
      const output = workers.map((w) => w.output()).join("\n");
      const notes: string[] = [];
      if (procs > 1)
        notes.push(
          `last worker started ${(Math.max(...starts) - Math.min(...starts)).toFixed(0)} ms after the first (counted)`,
        );
      if (warmup > 0) notes.push(`measured after ${from.settled.toLocaleString("en-US")} events settled`);
      notes.push(...rollbackNote(output));
      if (codes.some((c) => c !== 0)) notes.push(`worker exit codes ${codes.join(", ")}`);
      const check = await verifyLedger(url);
      notes.push(...deadlockNote(check));
      return { events: measured, ...rate(measured, t1 - from.t), check, cpu, notes };
    } finally {
      await Promise.all(workers.map((w) => stopChild(w)));
      await sql.end({ timeout: 5 });
    }
  });
}

/** pgbench, one transaction per event, `clients` connections; the clock starts when pgbench is spawned. */
export async function drainWithPgbench(n: number, clients: number): Promise<DrainResult> {
  return withFreshDb(async (url, name) => {
    await seedClaimed(url, n);
    const sql = connect(url);
    try {
      const remaining = async () =>
        (await sql<{ n: number }[]>`select count(*)::int as n from webhook_event where status <> 'settled'`)[0]?.n ?? 0;
      const backends = backendCpu(sql, name);
      const t0 = performance.now();
      const run = runPgbench(name, clients, remaining);
      let failed: unknown;
      run.done.catch((err: unknown) => (failed = err));
      const onPoll = async () => {
        run.sampleCpu();
        await backends.sample();
      };
      const t1 = await waitIdle(() => ledgerBusy(sql), {
        onPoll,
        check: () => {
          if (failed) throw failed instanceof Error ? failed : new Error(String(failed));
        },
      });
      await onPoll();
      await run.done;
      const cpu = { client: (1000 * run.clientCpu()) / n, postgres: (1000 * backends.seconds()) / n };
      const check = await verifyLedger(url);
      return { events: n, ...rate(n, t1 - t0), check, cpu, notes: deadlockNote(check) };
    } finally {
      await sql.end({ timeout: 5 });
    }
  });
}
