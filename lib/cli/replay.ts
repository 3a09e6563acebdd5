import { userInfo } from "node:os";
import { parseArgs } from "node:util";
import { connectPostgres } from "@/db/client";
import { migratePostgresUrl } from "@/db/migrate";
import type { ReplayRun } from "@/db/schema/replay";
import { EnvError, getEnv } from "@/lib/env";
import { describeError } from "@/lib/errors";
import { driveReplayRun, leaseOwner, type ReplayHost } from "@/lib/replay/drive";
import { createReplayRunAs, ReplayInput, takeReplayRun } from "@/lib/replay/runs";
import { markStopped } from "@/lib/replay/stop";
import { missingConfig, replayApiConfigFromEnv } from "@/lib/replay/sources";
import { coalesce, WAKE_CHANNEL } from "@/lib/worker/wake";

const USAGE = `usage: npm run replay -- --source stripe|github|paddle --since <ISO time> [--until <ISO time>] [--type <event type>]… [--dry-run]
       npm run replay -- --resume <run id>
options: --github-hook owner/repo/hook_id (default GITHUB_REPLAY_HOOK) · --redeliver (GitHub: ask GitHub to redeliver instead)
         --failed-only (Stripe: only events whose delivery failed, delivery_success=false)`;

class UsageError extends Error {}

function parse(argv: string[]) {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        source: { type: "string" },
        since: { type: "string" },
        until: { type: "string" },
        type: { type: "string", multiple: true },
        "dry-run": { type: "boolean", default: false },
        resume: { type: "string" },
        "github-hook": { type: "string" },
        redeliver: { type: "boolean", default: false },
        "failed-only": { type: "boolean", default: false },
        help: { type: "boolean", default: false },
      },
    }));
  } catch (err) {
    throw new UsageError(describeError(err));
  }
  if (values.help) return { kind: "help" as const };
  if (values.resume !== undefined) {
    if (!/^\d+$/.test(values.resume))
      throw new UsageError(`--resume takes a run id (a number), not "${values.resume}"`);
    if (values.source || values.since)
      throw new UsageError("--resume continues a recorded run: give no --source or --since with it");
    return { kind: "resume" as const, id: Number(values.resume) };
  }
  if (!values.source) throw new UsageError("--source is required");
  if (!values.since) throw new UsageError("--since is required (e.g. 2026-11-01T10:00:00Z)");
  for (const [name, v] of [
    ["since", values.since],
    ["until", values.until],
  ] as const)
    if (v !== undefined && Number.isNaN(Date.parse(v)))
      throw new UsageError(`--${name} "${v}" is not a date and time (use ISO 8601, e.g. 2026-11-01T10:00:00Z)`);
  const parsed = ReplayInput.safeParse({
    source: values.source,
    since: values.since,
    until: values.until,
    types: values.type ?? [],
    dryRun: values["dry-run"],
    githubHook: values["github-hook"],
    githubRedeliver: values.redeliver,
    stripeFailedOnly: values["failed-only"],
  });
  if (!parsed.success)
    throw new UsageError(
      parsed.error.issues
        .map((i) => (i.path[0] === "source" ? `--source must be one of stripe, github, paddle` : i.message))
        .join("; "),
    );
  return { kind: "start" as const, input: parsed.data };
}

const line = (run: ReplayRun) =>
  `fetched ${run.fetched} · new ${run.new} · duplicates ${run.duplicates} · failed ${run.failed}`;

/**
 * `npm run replay`: progress on stderr, one JSON line of counts on stdout. Exit 0 done, 1 failed, 2 bad
 * usage, 130 interrupted.
 */
async function main(): Promise<number> {
  let args;
  try {
    args = parse(process.argv.slice(2));
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    console.error(`replay: ${err.message}\n${USAGE}`);
    return 2;
  }
  if (args.kind === "help") {
    console.error(USAGE);
    return 0;
  }
  const env = getEnv();
  if (!env.DATABASE_URL) {
    console.error(
      "replay: DATABASE_URL is required (the embedded database belongs to the app process; replay from the console there).",
    );
    return 2;
  }
  const config = replayApiConfigFromEnv(env);
  if (args.kind === "start") {
    const missing = missingConfig(args.input.source, config, Boolean(args.input.githubHook));
    if (missing) {
      console.error(`replay: cannot replay ${args.input.source}: ${missing}`);
      return 2;
    }
  }
  await migratePostgresUrl(env.DATABASE_URL);
  const handle = connectPostgres(env.DATABASE_URL, { max: 3 });
  const wake = coalesce(() => handle.notify!(WAKE_CHANNEL), 250);
  const host: ReplayHost = {
    db: handle.db,
    config,
    lease: { owner: leaseOwner("cli"), leaseMs: env.REPLAY_LEASE_MS },
    log: (m) => console.error(`[replay] ${m}`),
    onProgress: (run) => console.error(`[replay ${run.id}] page ${run.pages}: ${line(run)}`),
    onClaimed: () => wake(),
  };
  const stop = new AbortController();
  const onSignal = (signal: string) => () => {
    console.error(`[replay] ${signal}: stopping after the current step`);
    stop.abort(new Error(signal));
  };
  process.once("SIGINT", onSignal("SIGINT"));
  process.once("SIGTERM", onSignal("SIGTERM"));
  try {
    const run =
      args.kind === "start"
        ? await createReplayRunAs({
            db: handle.db,
            who: `cli:${userInfo().username}`,
            input: args.input,
            lease: host.lease,
            defaultHook: config.github.hook,
          })
        : await takeReplayRun(handle.db, args.id, host.lease, { reopen: true });
    const what = `${run.dryRun ? "dry run" : "replay"} ${run.id}: ${run.source} ${run.since.toISOString()} → ${run.until.toISOString()}`;
    console.error(
      `[replay] ${args.kind === "start" ? "started" : `resuming from cursor ${run.cursor ?? "start"}`} ${what}`,
    );
    let done = await driveReplayRun(run, host, stop.signal);
    if (done.interrupted && stop.signal.aborted)
      done = await markStopped(
        handle.db,
        done.id,
        `stopped by ${(stop.signal.reason as Error).message}; resume with npm run replay -- --resume ${done.id}`,
      );
    if (done.lastError) console.error(`[replay ${done.id}] ${done.status}: ${done.lastError}`);
    console.error(`[replay ${done.id}] ${done.status}: ${line(done)}`);
    console.log(
      JSON.stringify({
        fetched: done.fetched,
        new: done.new,
        duplicates: done.duplicates,
        failed: done.failed,
        runId: done.id,
        status: done.status,
      }),
    );
    return done.status === "succeeded" ? 0 : done.status === "cancelled" ? 130 : 1;
  } finally {
    await handle.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`replay: ${err instanceof EnvError ? err.message : describeError(err)}`);
    process.exit(err instanceof EnvError ? 2 : 1);
  },
);
