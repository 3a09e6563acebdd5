import { sql } from "drizzle-orm";
import { rowsOf, type Db } from "@/db/client";
import { webhookRefusal, type RefusalReason } from "@/db/schema/sources";
import { listLimit } from "@/lib/auth/list-args";
import { describeError } from "@/lib/errors";
import type { Provider, RequestHeaders } from "@/lib/providers/types";

/** A refused delivery of a known source, as metadata: never the body, never a header's value. */
export interface Refusal {
  source: string;
  reason: RefusalReason;
  detail: string;
  status: number;
  size?: number;
  remoteAddr?: string;
  signatureHeader?: string;
}

export interface RefusalSink {
  /** Never waits and never throws: the answer to the sender does not depend on it. */
  record(refusal: Refusal): void;
}

export interface RefusalRecorder extends RefusalSink {
  /** Writes what is queued now (tests, shutdown). */
  flush(): Promise<void>;
  close(): Promise<void>;
  /** Refusals dropped because the queue was full (a flood larger than the bound). */
  readonly dropped: number;
}

export interface RecorderOptions {
  getDb: () => Promise<Db>;
  flushMs?: number;
  /** Refusals held between flushes, at most; past it they are counted in `dropped` and the last row's count. */
  maxQueue?: number;
  /** Itemised rows per (source, reason, header) per flush; the rest are folded into the last one's count. */
  maxRowsPerGroup?: number;
  /** Rows kept: older than this are deleted, and at most maxRowsPerSource per source. */
  keepDays?: number;
  maxRowsPerSource?: number;
  log?: (message: string) => void;
}

/**
 * Refusals are written behind the answer, in one insert a second, folded when alike: a flood of bad
 * signatures costs a few rows a second and a bounded queue, never a write per request or a wait on the
 * database. The table is trimmed after writes (by age and rows per source), so it stays bounded too.
 */
export function createRefusalRecorder(opts: RecorderOptions): RefusalRecorder {
  const flushMs = opts.flushMs ?? 1000;
  const maxQueue = opts.maxQueue ?? 1000;
  const perGroup = opts.maxRowsPerGroup ?? 5;
  // `at`: performance.now() when refused; written as the database's now() less its age (see write).
  let queue: { refusal: Refusal; at: number }[] = [];
  let overflow = 0;
  let dropped = 0;
  let timer: NodeJS.Timeout | undefined;
  let writing: Promise<void> = Promise.resolve();
  let lastTrim = -Infinity;

  const schedule = () => {
    timer ??= setTimeout(() => {
      timer = undefined;
      void flush();
    }, flushMs);
    timer.unref?.();
  };

  const write = async (batch: { refusal: Refusal; at: number }[], extra: number) => {
    const groups = new Map<string, { refusal: Refusal; at: number; count: number }[]>();
    for (const item of batch) {
      const key = `${item.refusal.source}\u0000${item.refusal.reason}\u0000${item.refusal.signatureHeader ?? ""}`;
      const rows = groups.get(key) ?? [];
      if (rows.length < perGroup) rows.push({ ...item, count: 1 });
      else rows[rows.length - 1]!.count += 1;
      groups.set(key, rows);
    }
    const rows = [...groups.values()].flat();
    if (extra > 0 && rows.length > 0) rows[rows.length - 1]!.count += extra;
    if (rows.length === 0) return;
    const db = await opts.getDb();
    const written = performance.now();
    await db.insert(webhookRefusal).values(
      rows.map(({ refusal: r, at, count }) => ({
        source: r.source,
        // The database's clock, not this host's: the trim below compares `at` with it.
        at: sql`now() - make_interval(secs => ${(written - at) / 1000}::float8)`,
        reason: r.reason,
        detail: r.detail.slice(0, 300),
        status: r.status,
        size: r.size,
        remoteAddr: r.remoteAddr?.slice(0, 64),
        signatureHeader: r.signatureHeader?.slice(0, 64),
        count,
      })),
    );
    if (performance.now() - lastTrim > 60_000) {
      lastTrim = performance.now();
      await trimRefusals(db, { keepDays: opts.keepDays ?? 7, maxRowsPerSource: opts.maxRowsPerSource ?? 10_000 });
    }
  };

  const flush = () => {
    const batch = queue;
    const extra = overflow;
    queue = [];
    overflow = 0;
    writing = writing
      .then(() => write(batch, extra))
      .catch((err: unknown) => {
        dropped += batch.length + extra;
        opts.log?.(`could not record ${batch.length + extra} refusals: ${describeError(err)}`);
      });
    return writing;
  };

  return {
    record(refusal) {
      // Past the bound a refusal is not itemised, only counted (on the last row of the flush).
      if (queue.length >= maxQueue) overflow += 1;
      else queue.push({ refusal, at: performance.now() });
      schedule();
    },
    flush,
    async close() {
      if (timer) clearTimeout(timer);
      timer = undefined;
      await flush();
    },
    get dropped() {
      return dropped;
    },
  };
}

/** Keeps the table bounded: by age, and at most `maxRowsPerSource` rows per source. */
export async function trimRefusals(db: Db, opts: { keepDays: number; maxRowsPerSource: number }): Promise<void> {
  await db.execute(sql`delete from webhook_refusal where at < now() - make_interval(days => ${opts.keepDays})`);
  await db.execute(sql`
    delete from webhook_refusal r
    using (
      select source, (select id from webhook_refusal x where x.source = s.source
                      order by id desc offset ${opts.maxRowsPerSource} limit 1) as below
      from (select distinct source from webhook_refusal) s
    ) cut
    where r.source = cut.source and cut.below is not null and r.id <= cut.below`);
}

/** The first of the provider's signature headers present in the request (its name only). */
export function signatureHeaderOf(provider: Provider, options: unknown, headers: RequestHeaders): string | undefined {
  const configured = (options as { signatureHeader?: unknown } | undefined)?.signatureHeader;
  const names = typeof configured === "string" ? [configured, ...provider.signatureHeaders] : provider.signatureHeaders;
  return names.find((name) => headers.has(name))?.toLowerCase();
}

export interface RefusalCount {
  source: string;
  reason: RefusalReason;
  count: number;
  last: Date;
}

/** Refusals per source and reason since `since`. */
export async function countRefusals(db: Db, since: Date, source?: string): Promise<RefusalCount[]> {
  const rows = rowsOf<{ source: string; reason: RefusalReason; count: number; last: string | Date }>(
    await db.execute(sql`
      select source, reason, sum(count)::int as count, max(at) as last
      from webhook_refusal
      where at >= ${since.toISOString()}::timestamptz ${source === undefined ? sql`` : sql`and source = ${source}`}
      group by source, reason
      order by source, count desc`),
  );
  return rows.map((r) => ({ ...r, last: new Date(r.last) }));
}

export interface RefusalRow {
  id: number;
  at: Date;
  reason: RefusalReason;
  detail: string;
  status: number;
  size: number | null;
  remoteAddr: string | null;
  signatureHeader: string | null;
  count: number;
}

/** The latest refusals of one source, newest first. */
export async function recentRefusals(db: Db, source: string, limit = 50): Promise<RefusalRow[]> {
  return db
    .select({
      id: webhookRefusal.id,
      at: webhookRefusal.at,
      reason: webhookRefusal.reason,
      detail: webhookRefusal.detail,
      status: webhookRefusal.status,
      size: webhookRefusal.size,
      remoteAddr: webhookRefusal.remoteAddr,
      signatureHeader: webhookRefusal.signatureHeader,
      count: webhookRefusal.count,
    })
    .from(webhookRefusal)
    .where(sql`${webhookRefusal.source} = ${source}`)
    .orderBy(sql`${webhookRefusal.id} desc`)
    .limit(listLimit(limit));
}
