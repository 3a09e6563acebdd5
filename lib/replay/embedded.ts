import { getDb } from "@/db";
import type { ReplayRun } from "@/db/schema/replay";
import type { Actor } from "@/lib/roles";
import { getEnv } from "@/lib/env";
import { describeError } from "@/lib/errors";
import { wakeWorkers } from "@/lib/worker/embedded";
import { driveReplayRun, leaseOwner, type ReplayHost } from "./drive";
import { startReplayResumer } from "./resume";
import { reopenReplayRun, startReplayRun, type ReplayInput } from "./runs";
import { replaySourceSetup, type ReplaySourceSetup } from "./form";
import { replayApiConfigFromEnv } from "./sources";

const g = globalThis as unknown as {
  __ledgerReplayHost?: Promise<ReplayHost>;
  __ledgerReplayResumer?: { stop: () => Promise<void> } | "starting";
  __ledgerReplayDrivers?: { stop: AbortController; driving: Set<Promise<unknown>> };
};

/** This process's drivers: one abort for all of them on shutdown, and what to wait for. */
function drivers() {
  g.__ledgerReplayDrivers ??= { stop: new AbortController(), driving: new Set() };
  return g.__ledgerReplayDrivers;
}

const log = (message: string) => console.log(`[replay] ${message}`);

/** The app process's replay host: one lease owner for every run this process drives. */
export function appReplayHost(): Promise<ReplayHost> {
  g.__ledgerReplayHost ??= getDb().then(
    (db) => {
      const env = getEnv();
      return {
        db,
        config: replayApiConfigFromEnv(env),
        lease: { owner: leaseOwner("app"), leaseMs: env.REPLAY_LEASE_MS },
        log,
        onClaimed: () => wakeWorkers(),
        statementTimeoutMs: env.WORKER_STATEMENT_TIMEOUT_MS,
      };
    },
    (err: unknown) => {
      g.__ledgerReplayHost = undefined; // the next call tries the database again
      throw err;
    },
  );
  return g.__ledgerReplayHost;
}

/** At app start: resume runs an earlier process left running, and keep watching for lapsed leases. */
export function startEmbeddedReplays(): void {
  if (g.__ledgerReplayResumer) return;
  g.__ledgerReplayResumer = "starting";
  appReplayHost().then(
    (host) => {
      if (drivers().stop.signal.aborted) return;
      g.__ledgerReplayResumer = startReplayResumer(host);
    },
    (err: unknown) => {
      g.__ledgerReplayResumer = undefined;
      log(`resumer not started: ${describeError(err)}`);
    },
  );
}

/**
 * Shutdown: every driver in this process stops after its current step and hands its run back (lease
 * released, still running, its cursor as of the last committed page), for the next start to resume.
 */
export async function stopEmbeddedReplays(): Promise<void> {
  const { stop, driving } = drivers();
  stop.abort(new Error("shutting down"));
  const resumer = g.__ledgerReplayResumer;
  await Promise.all([typeof resumer === "object" ? resumer.stop() : undefined, ...driving]);
}

/** Console: record the run (ops, audited) and drive it in this process after the answer; progress is in its row. */
export async function launchReplay({
  actor,
  input,
}: {
  actor: Actor | undefined;
  input: ReplayInput;
}): Promise<ReplayRun> {
  const host = await appReplayHost();
  return inBackground(
    host,
    await startReplayRun({ db: host.db, actor, input, lease: host.lease, defaultHook: host.config.github.hook }),
  );
}

/** Console: continue a failed or cancelled run from its cursor, in the background. */
export async function resumeReplay({ actor, id }: { actor: Actor | undefined; id: number }): Promise<ReplayRun> {
  const host = await appReplayHost();
  return inBackground(host, await reopenReplayRun({ db: host.db, actor, id, lease: host.lease }));
}

function inBackground(host: ReplayHost, run: ReplayRun): ReplayRun {
  const { stop, driving } = drivers();
  const drive = driveReplayRun(run, host, stop.signal).then(
    (done) =>
      log(
        `replay ${done.id}: ${done.status}, fetched ${done.fetched}, new ${done.new}, duplicates ${done.duplicates}, failed ${done.failed}`,
      ),
    (err: unknown) =>
      log(`replay ${run.id} stopped: ${describeError(err)} (the resumer will take it up when its lease lapses)`),
  );
  driving.add(drive);
  void drive.finally(() => driving.delete(drive));
  return run;
}

/** Per source, whether the console can replay it here and, if not, which variables to set: for the console form. */
export function getReplaySetup(): ReplaySourceSetup[] {
  return replaySourceSetup(replayApiConfigFromEnv(getEnv()));
}
