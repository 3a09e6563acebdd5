/** graphile-worker 0.17 draining no-op jobs, measured the same way as our worker. */
import { runMigrations } from "graphile-worker";
import { backendCpu, connect, settleDb, waitIdle, withFreshDb } from "./worker-db";
import type { DrainResult } from "./worker-drain";
import { startChild, stopChild } from "./worker-procs";

export const GRAPHILE_MODES = {
  defaults: "library defaults: concurrency 1, maxPoolSize 10, prepared statements, pollInterval 2000",
  batched:
    "concurrency 24, maxPoolSize 25, useNodeTime, localQueue { size: 500 }, completeJobBatchDelay 0, failJobBatchDelay 0",
} as const;
export type GraphileMode = keyof typeof GRAPHILE_MODES;

/**
 * Adds `n` no-op jobs with one `graphile_worker.add_jobs` call, then starts a graphile-worker process;
 * the clock starts when it prints "started:" and stops when the jobs table is empty (completed jobs are
 * deleted).
 */
export async function drainWithGraphile(n: number, mode: GraphileMode): Promise<DrainResult> {
  return withFreshDb(async (url, name) => {
    await runMigrations({ connectionString: url });
    const sql = connect(url);
    try {
      await sql`
        select count(*) from graphile_worker.add_jobs(array(
          select row('noop', json_build_object('n', g), null, null, null, null, null, null)::graphile_worker.job_spec
          from generate_series(1, ${n}::int) g))`;
      await settleDb(sql, ["graphile_worker._private_jobs"]);
      const child = startChild(
        `graphile-worker (${mode})`,
        process.execPath,
        ["--import", "tsx", "bench/worker-graphile-child.ts"],
        {
          DATABASE_URL: url,
          BENCH_GW_MODE: mode,
        },
      );
      try {
        const backends = backendCpu(sql, name);
        const t0 = await child.started;
        const busy = async () =>
          (await sql<{ busy: boolean }[]>`select exists (select 1 from graphile_worker._private_jobs) as busy`)[0]
            ?.busy ?? true;
        const t1 = await waitIdle(busy, { check: () => child.assertAlive(), onPoll: backends.sample });
        await backends.sample();
        const cpu = {
          client: (1000 * (child.cpuSinceStarted() ?? NaN)) / n,
          postgres: (1000 * backends.seconds()) / n,
        };
        await stopChild(child);
        const ran = Number(/done: (\d+) jobs/.exec(child.output())?.[1] ?? NaN);
        const notes = ran === n ? [] : [`graphile-worker reported ${ran} jobs run, expected ${n}`];
        return { events: n, seconds: (t1 - t0) / 1000, perSecond: n / ((t1 - t0) / 1000), cpu, notes };
      } finally {
        await stopChild(child);
      }
    } finally {
      await sql.end({ timeout: 5 });
    }
  });
}
