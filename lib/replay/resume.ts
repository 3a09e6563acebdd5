import { describeError } from "@/lib/errors";
import { ConflictError, NotFoundError } from "@/lib/errors";
import { driveReplayRun, type ReplayHost } from "./drive";
import { listOrphanedRuns, takeReplayRun } from "./runs";

/** Take over every running run whose process stopped, and drive each from its cursor. */
export async function resumeOrphanedRuns(host: ReplayHost, signal?: AbortSignal): Promise<number[]> {
  const resumed: number[] = [];
  for (const orphan of await listOrphanedRuns(host.db)) {
    let run;
    try {
      run = await takeReplayRun(host.db, orphan.id, host.lease);
    } catch (err) {
      if (err instanceof ConflictError || err instanceof NotFoundError) continue; // another process took it first
      throw err;
    }
    host.log?.(`resuming replay ${run.id} (${run.source}) from cursor ${run.cursor ?? "start"}`);
    resumed.push(run.id);
    const done = await driveReplayRun(run, host, signal);
    host.log?.(
      `replay ${done.id}: ${done.status}, fetched ${done.fetched}, new ${done.new}, duplicates ${done.duplicates}, failed ${done.failed}`,
    );
  }
  return resumed;
}

/**
 * In the app: resume interrupted runs at start-up and whenever a lease lapses later (another
 * instance died). Stopping hands the current run back, still running, for the next start.
 */
export function startReplayResumer(host: ReplayHost, intervalMs = host.lease.leaseMs): { stop: () => Promise<void> } {
  const stop = new AbortController();
  let busy: Promise<void> | undefined;
  const tick = () => {
    busy ??= resumeOrphanedRuns(host, stop.signal)
      .then(() => undefined)
      .catch((err: unknown) => host.log?.(`replay resumer: ${describeError(err)}`))
      .finally(() => {
        busy = undefined;
      });
  };
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  tick();
  return {
    stop: async () => {
      clearInterval(timer);
      stop.abort(new Error("shutting down"));
      await busy;
    },
  };
}
