import { randomBytes } from "node:crypto";
import { and, desc, eq, inArray, isNull, lt, or, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "@/db/client";
import { REPLAY_SOURCES, replayRun, type ReplayParams, type ReplayRun } from "@/db/schema/replay";
import { writeAudit } from "@/lib/audit/write";
import { audited } from "@/lib/audit/audited";
import { listLimit, type ListArgs } from "@/lib/auth/list-args";
import { authorize, type Actor } from "@/lib/roles";
import { ConflictError, NotFoundError } from "@/lib/errors";
import { parseGithubHook } from "./sources";

export const ReplayInput = z
  .object({
    source: z.enum(REPLAY_SOURCES),
    since: z.coerce.date({ message: "since must be a date and time" }),
    until: z.coerce.date({ message: "until must be a date and time" }).optional(),
    types: z.array(z.string().trim().min(1).max(255)).max(50).default([]),
    dryRun: z.boolean().default(false),
    /** GitHub: "owner/repo/hook_id" (default GITHUB_REPLAY_HOOK). */
    githubHook: z.string().optional(),
    githubRedeliver: z.boolean().default(false),
    stripeFailedOnly: z.boolean().default(false),
  })
  .refine((i) => !Number.isNaN(i.since.getTime()) && (!i.until || !Number.isNaN(i.until.getTime())), {
    message: "since and until must be valid dates",
  })
  .refine((i) => !i.until || i.until > i.since, { message: "until must be after since", path: ["until"] })
  .refine((i) => !i.githubHook || parseGithubHook(i.githubHook), {
    message: "the GitHub hook must look like owner/repo/hook_id",
    path: ["githubHook"],
  });
export type ReplayInput = z.input<typeof ReplayInput>;

export interface RunLease {
  /** Who drives: a host's name; each take or start makes it one drive's own (see perDrive). */
  owner: string;
  leaseMs: number;
}

/**
 * The lease is per drive, not per process: a process whose own lease lapsed (a long GC pause, a stalled
 * page) must not start a second driver of the same run beside the first, which would count pages twice.
 */
function perDrive(lease: RunLease): RunLease {
  return { owner: `${lease.owner}#${randomBytes(4).toString("hex")}`, leaseMs: lease.leaseMs };
}

function paramsOf(i: z.output<typeof ReplayInput>, defaultHook: string | undefined): ReplayParams {
  const params: ReplayParams = {};
  const hook = parseGithubHook(i.githubHook ?? defaultHook ?? "");
  if (i.source === "github" && hook) params.github = { ...hook, redeliver: i.githubRedeliver };
  if (i.source === "stripe" && i.stripeFailedOnly) params.stripeFailedOnly = true;
  return params;
}

async function insertRun(
  db: Db,
  who: string,
  i: z.output<typeof ReplayInput>,
  host: RunLease,
  defaultHook: string | undefined,
): Promise<ReplayRun> {
  const lease = perDrive(host);
  const [row] = await db
    .insert(replayRun)
    .values({
      actor: who,
      source: i.source,
      since: i.since,
      until: i.until ?? new Date(),
      types: i.types,
      dryRun: i.dryRun,
      params: paramsOf(i, defaultHook),
      leaseOwner: lease.owner,
      leaseExpiresAt: sql`now() + ${lease.leaseMs} * interval '1 millisecond'`,
      heartbeatAt: sql`now()`,
    })
    .returning();
  if (!row) throw new Error("replay_run insert returned no row");
  return row;
}

const auditDetail = (run: ReplayRun) => ({
  source: run.source,
  since: run.since.toISOString(),
  until: run.until.toISOString(),
  types: run.types,
  dryRun: run.dryRun,
});

/** Console: record a run (held by `lease.owner`, who drives it next) with its audit row (ops). */
export async function startReplayRun(args: {
  db: Db;
  actor: Actor | undefined;
  input: ReplayInput;
  lease: RunLease;
  defaultHook?: string;
}): Promise<ReplayRun> {
  const i = ReplayInput.parse(args.input);
  return audited(
    args.db,
    args.actor,
    "replay.start",
    {
      action: i.dryRun ? "replay.preview" : "replay.start",
      target: `replay:${i.source}`,
      detail: { since: i.since.toISOString(), until: i.until?.toISOString() ?? "now", types: i.types },
    },
    (tx, who) => insertRun(tx, who.email, i, args.lease, args.defaultHook),
  );
}

/** CLI: whoever holds the database credentials may replay; recorded under their name. */
export async function createReplayRunAs(args: {
  db: Db;
  who: string;
  input: ReplayInput;
  lease: RunLease;
  defaultHook?: string;
}): Promise<ReplayRun> {
  const i = ReplayInput.parse(args.input);
  return args.db.transaction(async (tx) => {
    const run = await insertRun(tx, args.who, i, args.lease, args.defaultHook);
    await writeAudit(
      tx,
      { id: null, email: args.who },
      {
        action: i.dryRun ? "replay.preview" : "replay.start",
        target: `replay:${run.id}`,
        detail: auditDetail(run),
        result: "ok",
      },
    );
    return run;
  });
}

export async function getReplayRun(db: Db, id: number): Promise<ReplayRun | undefined> {
  const [row] = await db.select().from(replayRun).where(eq(replayRun.id, id));
  return row;
}

export async function listReplayRuns({ db, actor, limit }: ListArgs): Promise<ReplayRun[]> {
  authorize(actor, "replay.read");
  return db.select().from(replayRun).orderBy(desc(replayRun.id)).limit(listLimit(limit));
}

/**
 * Take the lease on a run to drive it: a running run whose lease lapsed (its process died), or with
 * `reopen`, a failed or cancelled one (resumed by a person). Conditional, so two processes never both win.
 */
export async function takeReplayRun(
  db: Db,
  id: number,
  host: RunLease,
  opts: { reopen?: boolean } = {},
): Promise<ReplayRun> {
  const lease = perDrive(host);
  const free = or(isNull(replayRun.leaseExpiresAt), lt(replayRun.leaseExpiresAt, sql`now()`));
  const takeable = opts.reopen
    ? or(and(eq(replayRun.status, "running"), free), inArray(replayRun.status, ["failed", "cancelled"]))
    : and(eq(replayRun.status, "running"), free);
  const [row] = await db
    .update(replayRun)
    .set({
      status: "running",
      finishedAt: null,
      lastError: null,
      leaseOwner: lease.owner,
      leaseExpiresAt: sql`now() + ${lease.leaseMs} * interval '1 millisecond'`,
      heartbeatAt: sql`now()`,
    })
    .where(and(eq(replayRun.id, id), takeable))
    .returning();
  if (row) return row;
  const current = await getReplayRun(db, id);
  if (!current) throw new NotFoundError(`no replay run ${id}`);
  if (current.status === "running")
    throw new ConflictError(
      `replay run ${id} is being driven by ${current.leaseOwner ?? "another process"} (lease until ${current.leaseExpiresAt?.toISOString() ?? "?"})`,
    );
  throw new ConflictError(
    `replay run ${id} is ${current.status}${opts.reopen ? "" : "; only a running run whose process stopped can be taken over"}`,
  );
}

/** Console: take a failed or cancelled run back up from its cursor (ops, audited); the caller then drives it. */
export async function reopenReplayRun({
  db,
  actor,
  id,
  lease,
}: {
  db: Db;
  actor: Actor | undefined;
  id: number;
  lease: RunLease;
}): Promise<ReplayRun> {
  return audited(db, actor, "replay.start", { action: "replay.resume", target: `replay:${id}` }, (tx) =>
    takeReplayRun(tx, id, lease, { reopen: true }),
  );
}

/** Running runs whose process stopped (lease lapsed): the resumer's work. */
export async function listOrphanedRuns(db: Db): Promise<ReplayRun[]> {
  return db
    .select()
    .from(replayRun)
    .where(
      and(
        eq(replayRun.status, "running"),
        or(isNull(replayRun.leaseExpiresAt), lt(replayRun.leaseExpiresAt, sql`now()`)),
      ),
    )
    .orderBy(replayRun.id);
}

/** Stop a running run (ops); its driver notices at its next heartbeat or page and stops. */
export async function cancelReplayRun({
  db,
  actor,
  id,
}: {
  db: Db;
  actor: Actor | undefined;
  id: number;
}): Promise<ReplayRun> {
  return audited(db, actor, "replay.start", { action: "replay.cancel", target: `replay:${id}` }, async (tx, who) => {
    const [row] = await tx
      .update(replayRun)
      .set({
        status: "cancelled",
        finishedAt: sql`now()`,
        lastError: `cancelled by ${who.email}`,
        leaseOwner: null,
        leaseExpiresAt: null,
      })
      .where(and(eq(replayRun.id, id), eq(replayRun.status, "running")))
      .returning();
    if (row) return row;
    const current = await getReplayRun(tx, id);
    if (!current) throw new NotFoundError(`no replay run ${id}`);
    throw new ConflictError(`replay run ${id} is ${current.status}; only a running run can be cancelled`);
  });
}

/** The real run a finished preview (dry run) stands for: same source, window, types and provider settings. */
export function replayInputFromPreview(preview: ReplayRun | undefined): ReplayInput {
  if (!preview) throw new NotFoundError("no such preview");
  if (!preview.dryRun) throw new ConflictError(`replay run ${preview.id} is not a preview`);
  if (preview.status !== "succeeded")
    throw new ConflictError(`preview ${preview.id} is ${preview.status}; start from a finished preview`);
  const hook = preview.params.github;
  return {
    source: preview.source,
    since: preview.since,
    until: preview.until,
    types: preview.types,
    githubHook: hook ? `${hook.owner}/${hook.repo}/${hook.hookId}` : undefined,
    githubRedeliver: hook?.redeliver ?? false,
    stripeFailedOnly: preview.params.stripeFailedOnly ?? false,
  };
}
