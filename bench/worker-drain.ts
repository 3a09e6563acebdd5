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
 */
export async function drainWithWorkers(
  n: number,
  procs: number,
  loops: number | undefined,
  batchSize: number,
): Promise<DrainResult> {
  return withFreshDb(async (url, name) => {
    await seedClaimed(url, n);
    const env: Record<string, string> = { WORKER_BATCH_SIZE: String(batchSize) };
    if (loops !== undefined) env.WORKER_CONCURRENCY = String(loops);
    const workers: Child[] = Array.from({ length: procs }, (_, i) => startWorker(url, `worker ${i + 1}`, env));
    const sql = connect(url);
    try {
      const backends = backendCpu(sql, name);
      const starts = await Promise.all(workers.map((w) => w.started));
      const t0 = Math.min(...starts);
      const t1 = await waitIdle(() => ledgerBusy(sql), {
        check: () => workers.forEach((w) => w.assertAlive()),
        onPoll: backends.sample,
      });
      await backends.sample();
      const client = workers.reduce((sum, w) => sum + (w.cpuSinceStarted() ?? NaN), 0);
      const cpu = { client: (1000 * client) / n, postgres: (1000 * backends.seconds()) / n };
      const codes = await Promise.all(workers.map((w) => stopChild(w)));
      const output = workers.map((w) => w.output()).join("\n");
      const notes: string[] = [];
      if (procs > 1)
        notes.push(`last worker started ${(Math.max(...starts) - t0).toFixed(0)} ms after the first (counted)`);
      notes.push(...rollbackNote(output));
      if (codes.some((c) => c !== 0)) notes.push(`worker exit codes ${codes.join(", ")}`);
      const check = await verifyLedger(url);
      notes.push(...deadlockNote(check));
      return { events: n, ...rate(n, t1 - t0), check, cpu, notes };
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
