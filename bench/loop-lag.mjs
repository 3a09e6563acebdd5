/**
 * Preloaded into the servers bench:ingest starts (NODE_OPTIONS=--import): their own event-loop delay, per phase.
 * Only when BENCH_LOOP_LAG_DIR is set. The process announces itself with <dir>/<pid>.ready; on SIGUSR2 it writes
 * <dir>/<pid>.json (p50, p99, max in ms since the previous SIGUSR2) and starts over. The driver signals only pids
 * that announced themselves, so nothing without this handler (esbuild, a shell) gets a SIGUSR2. Sampling every
 * 2 ms costs the process about 1.5 % of a core (≈15 ms CPU a second); BENCH_LOOP_LAG=off leaves it out.
 */
import { writeFileSync } from "node:fs";
import { monitorEventLoopDelay } from "node:perf_hooks";

const dir = process.env.BENCH_LOOP_LAG_DIR;
if (dir) {
  const h = monitorEventLoopDelay({ resolution: 2 });
  h.enable();
  process.on("SIGUSR2", () => {
    const ms = (ns) => ns / 1e6;
    writeFileSync(
      `${dir}/${process.pid}.json`,
      JSON.stringify({ p50: ms(h.percentile(50)), p99: ms(h.percentile(99)), max: ms(h.max), n: h.count }),
    );
    h.reset();
  });
  writeFileSync(`${dir}/${process.pid}.ready`, process.argv.slice(1).join(" "));
}
