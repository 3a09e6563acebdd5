import { and, eq, sql } from "drizzle-orm";
import type { PgUpdateSetSource } from "drizzle-orm/pg-core";
import { setLocalTimeouts, type Db } from "@/db/client";
import { replayRun, webhookEvent, type ReplayRun } from "@/db/schema";
import type { ReplaySampleItem } from "@/db/schema/replay";
import { describeError, isRetryableConflict } from "@/lib/errors";
import { claimEvents, type Claim } from "@/lib/intake/claim";
import { describeDelivery } from "@/lib/intake/describe";
import { nestingExceeds } from "@/lib/intake/json";
import { getMetrics } from "@/lib/metrics";

/** WEBHOOK_MAX_DEPTH's default: real payloads nest under 15 levels. */
const REPLAY_MAX_DEPTH = 64;
/** How many would-be-new events a preview keeps to show. */
const SAMPLE_SIZE = 10;
import { pgArray } from "@/db/pg-array";
import type { RunLease } from "./runs";
import type { ReplayItem, ReplayLister } from "./types";

export interface ExecuteDeps {
  db: Db;
  /** Built per execution so its requests stop with the run (abort, lost lease). */
  lister: (signal: AbortSignal) => ReplayLister;
  lease: RunLease;
  /** Aborting stops after the current step and hands the run back (lease released, still running). */
  signal?: AbortSignal;
  onProgress?: (run: ReplayRun) => void;
  /** New events were committed: wake a worker. */
  onClaimed?: (count: number) => void;
  log?: (message: string) => void;
  /** The page transaction's statement bound, longer than the pool's (WORKER_STATEMENT_TIMEOUT_MS). */
  statementTimeoutMs?: number;
}

export type ExecuteResult = ReplayRun & { interrupted?: boolean };

class LeaseLostError extends Error {}

interface PageCounts {
  fetched: number;
  new: number;
  duplicates: number;
  failed: number;
  skipped?: string;
  /** A dry run's sample so far, with this page's additions. */
  sample?: ReplaySampleItem[];
}

/** The run's sample topped up from this page's missing events (set, not appended: a retried commit writes it once). */
function topUpSample(run: ReplayRun, missing: ReplayItem[]): ReplaySampleItem[] | undefined {
  const room = SAMPLE_SIZE - run.sample.length;
  if (room <= 0 || missing.length === 0) return undefined;
  const more = missing.slice(0, room).map((i) => ({
    eventId: i.eventId,
    ...(i.type ? { type: i.type } : {}),
    ...(i.at && !Number.isNaN(i.at.getTime()) ? { at: i.at.toISOString() } : {}),
  }));
  return [...run.sample, ...more];
}

/** A committed page's counts, as webhook_replay_events_total{source,result}. */
function countReplayPage(was: ReplayRun, now: ReplayRun): void {
  const counter = getMetrics().replayEvents;
  const deltas = {
    new: now.new - was.new,
    duplicate: now.duplicates - was.duplicates,
    failed: now.failed - was.failed,
  };
  for (const [result, n] of Object.entries(deltas)) if (n > 0) counter.inc({ source: now.source, result }, n);
}

async function existingIds(db: Db, source: string, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .select({ id: webhookEvent.eventId })
    .from(webhookEvent)
    .where(and(eq(webhookEvent.source, source), sql`${webhookEvent.eventId} = any(${pgArray(ids, "text")})`));
  return new Set(rows.map((r) => r.id));
}

async function loadAll(run: ReplayRun, items: ReplayItem[], counts: PageCounts): Promise<Claim[]> {
  const out: Claim[] = [];
  // A few payload fetches at a time (GitHub: one request per missing delivery), in listing order.
  for (let i = 0; i < items.length; i += 4) {
    const loaded = await Promise.all(items.slice(i, i + 4).map(async (item) => ({ item, event: await item.load() })));
    for (const { item, event } of loaded) {
      if (!event) {
        counts.failed++;
        counts.skipped = `${item.eventId}: the provider no longer has its payload`;
        continue;
      }
      // The receiver's depth limit, for events that come from an API instead of a delivery.
      if (nestingExceeds(event.payload, REPLAY_MAX_DEPTH)) {
        counts.failed++;
        counts.skipped = `${item.eventId}: JSON nested deeper than ${REPLAY_MAX_DEPTH} levels`;
        continue;
      }
      const d = describeDelivery({
        // A run replays the source its provider's API key belongs to: the one named after the kind.
        source: { slug: run.source, provider: run.source },
        payload: event.payload,
        rawBody: event.rawBody,
        headers: new Headers({ ...event.headers, "x-ledger-replay-run": String(run.id) }),
        via: "replay",
        actor: `${run.actor} (replay ${run.id})`,
      });
      if (d.ok) out.push(d.claim);
      else {
        counts.failed++;
        counts.skipped = `${item.eventId}: ${d.reason}`;
      }
    }
  }
  return out;
}

/**
 * One page's outcome commits in one transaction: the claims, the counts and the cursor of the next
 * page. Killed before the commit, the page is fetched and claimed again and counted once; fenced on
 * the lease, so a process that lost the run writes nothing.
 */
async function commitPage(
  db: Db,
  run: ReplayRun,
  lease: RunLease,
  claims: Claim[],
  counts: PageCounts,
  next: string | undefined,
  statementTimeoutMs: number | undefined,
): Promise<ReplayRun> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction(async (tx) => {
        if (statementTimeoutMs) await setLocalTimeouts(tx, { statementTimeoutMs });
        const c = { ...counts };
        // One statement for the page, inserting in key order like the receiver's (no deadlock between them).
        for (const { claimed } of await claimEvents(tx, claims)) {
          if (claimed) c.new++;
          else c.duplicates++;
        }
        const [row] = await tx
          .update(replayRun)
          .set({
            fetched: sql`${replayRun.fetched} + ${c.fetched}`,
            new: sql`${replayRun.new} + ${c.new}`,
            duplicates: sql`${replayRun.duplicates} + ${c.duplicates}`,
            failed: sql`${replayRun.failed} + ${c.failed}`,
            pages: sql`${replayRun.pages} + 1`,
            cursor: next ?? run.cursor,
            ...(c.sample ? { sample: c.sample } : {}),
            ...(c.skipped ? { lastError: `skipped ${c.skipped}` } : {}),
            ...(next === undefined
              ? { status: "succeeded" as const, finishedAt: sql`now()`, leaseOwner: null, leaseExpiresAt: null }
              : {}),
            heartbeatAt: sql`now()`,
            leaseExpiresAt: next === undefined ? null : sql`now() + ${lease.leaseMs} * interval '1 millisecond'`,
          })
          .where(and(eq(replayRun.id, run.id), eq(replayRun.status, "running"), eq(replayRun.leaseOwner, lease.owner)))
          .returning();
        if (!row) throw new LeaseLostError();
        return row;
      });
    } catch (err) {
      if (attempt < 3 && isRetryableConflict(err)) continue;
      throw err;
    }
  }
}

async function finish(
  db: Db,
  run: ReplayRun,
  lease: RunLease,
  set: PgUpdateSetSource<typeof replayRun>,
): Promise<ReplayRun> {
  const [row] = await db
    .update(replayRun)
    .set({ ...set, leaseOwner: null, leaseExpiresAt: null })
    .where(and(eq(replayRun.id, run.id), eq(replayRun.status, "running"), eq(replayRun.leaseOwner, lease.owner)))
    .returning();
  return row ?? (await db.select().from(replayRun).where(eq(replayRun.id, run.id)))[0] ?? run;
}

/**
 * Drive a run the caller holds the lease on, page by page from its cursor, to succeeded or failed.
 * Each event goes through the claim (via 'replay'); a dry run only reads which ids the ledger has.
 */
export async function executeReplayRun(start: ReplayRun, deps: ExecuteDeps): Promise<ExecuteResult> {
  const { db, lease } = deps;
  const stop = new AbortController();
  const lister = deps.lister(stop.signal);
  const onAbort = () => stop.abort(deps.signal?.reason);
  deps.signal?.addEventListener("abort", onAbort, { once: true });
  // Heartbeat between commits: a page waiting out Retry-After must not look like a dead process.
  const heartbeat = setInterval(
    () => {
      db.update(replayRun)
        .set({ heartbeatAt: sql`now()`, leaseExpiresAt: sql`now() + ${lease.leaseMs} * interval '1 millisecond'` })
        .where(and(eq(replayRun.id, start.id), eq(replayRun.status, "running"), eq(replayRun.leaseOwner, lease.owner)))
        .returning({ id: replayRun.id })
        .then((rows) => rows.length === 0 && stop.abort(new LeaseLostError()))
        .catch((err: unknown) => deps.log?.(`replay ${start.id}: heartbeat failed: ${describeError(err)}`));
    },
    Math.max(200, Math.floor(lease.leaseMs / 3)),
  );

  let run = start;
  try {
    for (;;) {
      if (stop.signal.aborted) throw stop.signal.reason;
      const at = run.cursor ? `the page after ${run.cursor}` : "the first page";
      let step = `fetching ${at}`;
      try {
        const page = await lister.page(run.cursor ?? undefined);
        step = `reading the ledger for ${at}`;
        const have = await existingIds(
          db,
          run.source,
          page.items.map((i) => i.eventId),
        );
        const missing = page.items.filter((i) => !have.has(i.eventId));
        const counts: PageCounts = {
          fetched: page.items.length,
          new: 0,
          duplicates: page.items.length - missing.length,
          failed: 0,
        };
        let inputs: Claim[] = [];
        if (run.dryRun) {
          counts.new = missing.length;
          counts.sample = topUpSample(run, missing);
        } else if (run.params.github?.redeliver) {
          step = `asking GitHub to redeliver ${at}`;
          for (const item of missing) await item.redeliver?.();
          counts.new = missing.length;
        } else {
          step = `fetching the payloads of ${at}`;
          inputs = await loadAll(run, missing, counts);
        }
        if (stop.signal.aborted) throw stop.signal.reason;
        step = `committing ${at}`;
        const before = run.new;
        const was = run;
        run = await commitPage(db, run, lease, inputs, counts, page.next, deps.statementTimeoutMs);
        if (!run.dryRun) countReplayPage(was, run);
        if (!run.dryRun && run.new > before) deps.onClaimed?.(run.new - before);
      } catch (err) {
        if (stop.signal.aborted || err instanceof LeaseLostError) throw err;
        const message =
          `${step} failed: ${describeError(err)}. Nothing from that page was counted; ` +
          `resume it from cursor ${run.cursor ?? "start"} (Resume in the console, or npm run replay -- --resume ${run.id}).`;
        deps.log?.(`replay ${run.id}: ${message}`);
        return await finish(db, run, lease, { status: "failed", lastError: message, finishedAt: sql`now()` });
      }
      deps.onProgress?.(run);
      if (run.status !== "running") return run;
    }
  } catch (err) {
    if (err instanceof LeaseLostError || stop.signal.reason instanceof LeaseLostError) {
      deps.log?.(`replay ${run.id}: stopped: the run was cancelled or taken over`);
      const [row] = await db.select().from(replayRun).where(eq(replayRun.id, run.id));
      return { ...(row ?? run), interrupted: true };
    }
    if (stop.signal.aborted) {
      const row = await finish(db, run, lease, { heartbeatAt: sql`now()` });
      return { ...row, interrupted: true };
    }
    throw err;
  } finally {
    clearInterval(heartbeat);
    deps.signal?.removeEventListener("abort", onAbort);
  }
}
