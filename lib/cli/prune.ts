import { userInfo } from "node:os";
import { EnvError, getEnv } from "@/lib/env";
import { describeError } from "@/lib/errors";
import { previewRetention } from "@/lib/retention/preview";
import { runRetention } from "@/lib/retention/run";
import { retentionSettingsFromEnv } from "@/lib/retention/settings";
import { cliArgs } from "./args";
import { cliDatabase } from "./database";

const USAGE = `usage: npm run prune [-- --dry-run]
Deletes settled events older than RETENTION_DAYS (keeping a tombstone each), tombstones older than TOMBSTONE_DAYS,
finished replay runs older than REPLAY_RETENTION_DAYS and audit rows older than AUDIT_RETENTION_DAYS (0: kept).
--dry-run counts what a run would delete and changes nothing. Progress on stderr, one JSON line on stdout.`;

/** `npm run prune`: exit 0 done, 1 failed, 2 bad usage or configuration, 130 stopped by a signal. */
async function main(): Promise<number> {
  const values = cliArgs("prune", USAGE, { "dry-run": { type: "boolean", default: false } });
  if (typeof values === "number") return values;
  // No statement bound of the app's pool: the dry run's exact counts read whole tables.
  const handle = await cliDatabase("prune", "the embedded database belongs to the app process, whose worker prunes it");
  if (!handle) return 2;
  const settings = retentionSettingsFromEnv(getEnv());
  try {
    if (values["dry-run"]) {
      const p = await previewRetention(handle.db, settings);
      console.log(
        JSON.stringify({
          dryRun: true,
          eventsBefore: p.cutoffs.events.toISOString(),
          events: p.events,
          deliveries: p.deliveries,
          attempts: p.attempts,
          transitions: p.transitions,
          tombstones: p.tombstones,
          replayRuns: p.replayRuns,
          auditRows: p.auditRows,
          keptUnsettled: p.keptUnsettled,
        }),
      );
      return 0;
    }
    const stop = new AbortController();
    const onSignal = (signal: string) => () => {
      console.error(`[prune] ${signal}: stopping after the current batch`);
      stop.abort(new Error(signal));
    };
    process.once("SIGINT", onSignal("SIGINT"));
    process.once("SIGTERM", onSignal("SIGTERM"));
    const started = performance.now();
    let lastLog = 0;
    const run = await runRetention(handle.db, settings, {
      actor: `cli:${userInfo().username}`,
      signal: stop.signal,
      onProgress: (c) => {
        if (performance.now() - lastLog < 2000) return;
        lastLog = performance.now();
        console.error(`[prune] ${c.events} events pruned in ${c.batches} batches`);
      },
    });
    if (!run) {
      console.error("prune: another retention run is in progress (see the console's overview); try again later");
      return 1;
    }
    const seconds = (performance.now() - started) / 1000;
    console.log(
      JSON.stringify({
        runId: run.id,
        status: run.status,
        events: run.events,
        deliveries: run.deliveries,
        attempts: run.attempts,
        transitions: run.transitions,
        tombstones: run.tombstones,
        replayRuns: run.replayRuns,
        auditRows: run.auditRows,
        seconds: Number(seconds.toFixed(1)),
      }),
    );
    return run.status === "succeeded" ? 0 : run.status === "cancelled" ? 130 : 1;
  } finally {
    await handle.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`prune: ${err instanceof EnvError ? err.message : describeError(err)}`);
    process.exit(err instanceof EnvError ? 2 : 1);
  },
);
