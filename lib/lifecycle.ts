import { describeError } from "@/lib/errors";

/** What a stop step is for; steps run stage by stage in this order, those of one stage together. */
export const STOP_STAGES = ["intake", "work", "connections"] as const;
export type StopStage = (typeof STOP_STAGES)[number];

export interface Lifecycle {
  /**
   * Register something this process runs, and how to stop it: `intake` (stop accepting, answer what is in
   * flight), `work` (worker, replay drivers), `connections` (pools).
   */
  onStop(stage: StopStage, name: string, stop: () => Promise<void>): void;
  /** Run every step, stage by stage; resolves true if all finished within the lifecycle's `timeoutMs`. */
  stop(reason: string): Promise<boolean>;
  readonly stopping: boolean;
}

/**
 * One handle for everything a process runs, so a deploy's SIGTERM drains instead of dropping: stop
 * taking work, let what is in flight finish (a worker batch settles, a replay driver stores its cursor),
 * close the pools, then exit. Past `timeoutMs` it gives up waiting; what was unfinished is retried later.
 */
export function createLifecycle(opts: { timeoutMs: number; log?: (message: string) => void }): Lifecycle {
  const steps: { stage: StopStage; name: string; stop: () => Promise<void> }[] = [];
  let stopped: Promise<boolean> | undefined;
  const log = opts.log ?? (() => {});

  async function runAll(reason: string): Promise<boolean> {
    const started = performance.now();
    log(`${reason}: draining (${steps.map((s) => s.name).join(", ") || "nothing registered"})`);
    for (const stage of STOP_STAGES) {
      await Promise.all(
        steps
          .filter((s) => s.stage === stage)
          .map((s) =>
            s.stop().catch((err: unknown) => {
              log(`stopping ${s.name}: ${describeError(err)}`);
            }),
          ),
      );
    }
    log(`stopped in ${Math.round(performance.now() - started)} ms`);
    return true;
  }

  return {
    onStop(stage, name, stop) {
      steps.push({ stage, name, stop });
    },
    stop(reason) {
      stopped ??= (() => {
        let timer: NodeJS.Timeout | undefined;
        const deadline = new Promise<boolean>((resolve) => {
          timer = setTimeout(() => {
            log(
              `still draining after ${opts.timeoutMs} ms: giving up (unfinished leases are retried when they expire)`,
            );
            resolve(false);
          }, opts.timeoutMs);
          timer.unref();
        });
        return Promise.race([runAll(reason), deadline]).finally(() => clearTimeout(timer));
      })();
      return stopped;
    },
    get stopping() {
      return stopped !== undefined;
    },
  };
}

/** SIGTERM / SIGINT → drain, then exit 0 (1 when the drain ran out of time). A second signal exits at once. */
export function exitOnSignals(lifecycle: Lifecycle, exit: (code: number) => void = (code) => process.exit(code)): void {
  const onSignal = (signal: NodeJS.Signals) => {
    if (lifecycle.stopping) return exit(1);
    void lifecycle.stop(signal).then((clean) => exit(clean ? 0 : 1));
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
}
