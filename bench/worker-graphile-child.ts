/**
 * graphile-worker 0.17 draining no-op jobs, as a standalone process like our worker (spawned by
 * bench/worker-graphile.ts). BENCH_GW_MODE=defaults: the library's defaults (concurrency 1, pool 10,
 * prepared statements). BENCH_GW_MODE=batched: the batching its performance page recommends.
 * Both modes log warnings and errors only: its default logger prints a line per completed job.
 */
import { Logger, run, type RunnerOptions } from "graphile-worker";

const url = process.env.DATABASE_URL;
const mode = process.env.BENCH_GW_MODE ?? "defaults";
if (!url) throw new Error("DATABASE_URL is required");

let done = 0;
const quiet = new Logger(() => (level, message) => {
  if (String(level) === "error" || String(level) === "warning")
    console.error(`[graphile] ${String(level)}: ${message}`);
});
const common: RunnerOptions = {
  connectionString: url,
  taskList: {
    noop: () => {
      done++;
    },
  },
  crontab: "",
  noHandleSignals: true,
  logger: quiet,
};
const BATCHED = {
  concurrency: 24,
  maxPoolSize: 25,
  useNodeTime: true,
  localQueue: 500,
  completeJobBatchDelay: 0,
  failJobBatchDelay: 0,
};
const options: RunnerOptions =
  mode === "batched"
    ? {
        ...common,
        concurrency: BATCHED.concurrency,
        maxPoolSize: BATCHED.maxPoolSize,
        useNodeTime: BATCHED.useNodeTime,
        preset: {
          worker: {
            localQueue: { size: BATCHED.localQueue },
            completeJobBatchDelay: BATCHED.completeJobBatchDelay,
            failJobBatchDelay: BATCHED.failJobBatchDelay,
          },
        },
      }
    : common;

const runner = await run(options);
console.log(`[graphile] started: ${mode}`);
let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  void runner.stop().then(() => {
    console.log(`[graphile] done: ${done} jobs`);
    process.exit(0);
  });
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
