import { sql } from "drizzle-orm";
import { rowsOf, type Tx } from "@/db/client";
import { pgArray } from "@/db/pg-array";
import type { SourceState } from "@/db/schema/sources";

/** A condition that holds now and has no firing incident yet. */
export interface Candidate {
  subject: string;
  source?: string;
  eventId?: string;
  summary: string;
  detail: Record<string, unknown>;
}

/** What one rule's evaluation changes: incidents to open, firing ones whose condition has cleared. */
export interface RuleOutcome {
  open: Candidate[];
  resolve: { id: number; resolution: string }[];
}

interface Firing {
  id: number;
  subject: string;
  /** Its condition stopped holding at an earlier evaluation (clear_since is set). */
  clearing: boolean;
  /** …and has stayed clear for the rule's resolve delay. */
  clearLongEnough: boolean;
}

export const asDate = (v: string | Date): Date => (v instanceof Date ? v : new Date(v));
const utc = (d: Date) => `${d.toISOString().slice(0, 16).replace("T", " ")} UTC`;
const fmtMinutes = (seconds: number) =>
  seconds >= 5400 ? `${(seconds / 3600).toFixed(1)} h` : `${Math.max(1, Math.round(seconds / 60))} min`;

async function firingOf(tx: Tx, rule: string, resolveAfterMs: number): Promise<Firing[]> {
  return rowsOf<{ id: number; subject: string; clearing: boolean; clear_long_enough: boolean | null }>(
    await tx.execute(sql`
      select id::int as id, subject, clear_since is not null as clearing,
             clear_since <= now() - make_interval(secs => ${resolveAfterMs / 1000}::float8) as clear_long_enough
      from alert_incident
      where rule = ${rule} and state = 'firing'`),
  ).map((r) => ({
    id: Number(r.id),
    subject: r.subject,
    clearing: r.clearing,
    clearLongEnough: r.clear_long_enough === true,
  }));
}

async function setClearSince(tx: Tx, ids: number[], to: "now" | "null"): Promise<void> {
  if (ids.length === 0) return;
  await tx.execute(sql`
    update alert_incident set clear_since = ${to === "now" ? sql`now()` : sql`null`}
    where id = any(${pgArray(ids, "bigint")})`);
}

/**
 * For the rules whose conditions are a small set (one per source, or one backlog): diff against the firing ones.
 * Hysteresis: a condition that stops holding resolves only after staying clear for `resolveAfterMs` (a backlog
 * hovering at its threshold, refusals in bursts, would otherwise page and resolve every evaluation); one that
 * returns meanwhile is the same incident still firing, and says nothing.
 */
async function diff(
  tx: Tx,
  rule: string,
  now: Map<string, Candidate>,
  resolution: (subject: string) => Promise<string> | string,
  resolveAfterMs: number,
): Promise<RuleOutcome> {
  const firing = await firingOf(tx, rule, resolveAfterMs);
  const open = [...now.values()].filter((c) => !firing.some((f) => f.subject === c.subject));
  const resolve: RuleOutcome["resolve"] = [];
  const back: number[] = [];
  const cleared: number[] = [];
  for (const f of firing) {
    if (now.has(f.subject)) {
      if (f.clearing) back.push(f.id);
    } else if (resolveAfterMs <= 0 || f.clearLongEnough) {
      resolve.push({ id: f.id, resolution: await resolution(f.subject) });
    } else if (!f.clearing) {
      cleared.push(f.id);
    }
  }
  await setClearSince(tx, back, "null");
  await setClearSince(tx, cleared, "now");
  return { open, resolve };
}

/** Dead events without an incident (oldest first, `cap` a tick), and dead-event incidents whose event moved on. */
export async function deadEventOutcome(tx: Tx, cap: number): Promise<RuleOutcome> {
  const open = rowsOf<{ source: string; event_id: string; event_type: string; attempts: number }>(
    await tx.execute(sql`
      select e.source, e.event_id, e.event_type, e.attempts
      from webhook_event e
      where e.status = 'dead'
        and not exists (
          select 1 from alert_incident i
          where i.rule = 'dead_event' and i.state = 'firing' and i.subject = e.source || '/' || e.event_id)
      order by e.received_at, e.event_id
      limit ${cap}`),
  );
  const cleared = rowsOf<{ id: number; subject: string; status: string | null }>(
    await tx.execute(sql`
      select i.id::int as id, i.subject, e.status
      from alert_incident i
      left join webhook_event e on e.source = i.source and e.event_id = i.event_id
      where i.rule = 'dead_event' and i.state = 'firing' and e.status is distinct from 'dead'
      order by i.id
      limit ${cap}`),
  );
  return {
    open: open.map((e) => ({
      subject: `${e.source}/${e.event_id}`,
      source: e.source,
      eventId: e.event_id,
      summary: `${e.source}/${e.event_id} (${e.event_type}) went dead after ${e.attempts} attempt${e.attempts === 1 ? "" : "s"}`,
      detail: { eventType: e.event_type, attempts: e.attempts },
    })),
    resolve: cleared.map((c) => ({
      id: Number(c.id),
      resolution: c.status ? `${c.subject} is ${c.status} now` : `${c.subject} is no longer in the ledger`,
    })),
  };
}

/** The backlog: the claimed or failed event that has been due longest (the worker's own index). */
export async function backlogOutcome(tx: Tx, minutes: number, resolveAfterMs = 0): Promise<RuleOutcome> {
  const [oldest] = rowsOf<{ source: string; event_id: string; due_seconds: number; received_at: string }>(
    await tx.execute(sql`
      select source, event_id, extract(epoch from now() - next_attempt_at)::float8 as due_seconds,
             received_at::text as received_at
      from webhook_event
      where status in ('claimed', 'failed')
      order by next_attempt_at
      limit 1`),
  );
  const now = new Map<string, Candidate>();
  const due = Number(oldest?.due_seconds ?? 0);
  if (oldest && due > minutes * 60) {
    const [waiting] = rowsOf<{ n: number }>(
      await tx.execute(sql`
        select count(*)::int as n from (
          select 1 from webhook_event
          where status in ('claimed', 'failed') and next_attempt_at <= now()
          limit 100001) capped`),
    );
    const n = Number(waiting?.n ?? 0);
    now.set("backlog", {
      subject: "backlog",
      summary:
        `The backlog's oldest event (${oldest.source}/${oldest.event_id}) has been due for ${fmtMinutes(due)} ` +
        `(threshold ${minutes} min); ${n > 100_000 ? "100,000+" : n.toLocaleString("en")} events due`,
      detail: {
        oldest: `${oldest.source}/${oldest.event_id}`,
        dueSeconds: Math.round(due),
        receivedAt: asDate(oldest.received_at).toISOString(),
        due: n,
      },
    });
  }
  return diff(
    tx,
    "backlog_age",
    now,
    () => (oldest ? `the oldest due event has waited ${fmtMinutes(Math.max(0, due))}` : "the backlog is empty"),
    resolveAfterMs,
  );
}

/** Refusals per source in the last 10 minutes (rows carry a count: several refusals folded into one). */
export async function refusalOutcome(tx: Tx, threshold: number, resolveAfterMs = 0): Promise<RuleOutcome> {
  const rows = rowsOf<{ source: string; reason: string; n: number }>(
    await tx.execute(sql`
      select source, reason, sum(count)::int as n
      from webhook_refusal
      where at > now() - interval '10 minutes'
      group by source, reason`),
  );
  const bySource = new Map<string, { total: number; reasons: Record<string, number> }>();
  for (const r of rows) {
    const s = bySource.get(r.source) ?? { total: 0, reasons: {} };
    s.total += Number(r.n);
    s.reasons[r.reason] = Number(r.n);
    bySource.set(r.source, s);
  }
  const now = new Map<string, Candidate>();
  for (const [source, s] of bySource) {
    if (s.total <= threshold) continue;
    const reasons = Object.entries(s.reasons)
      .sort((a, b) => b[1] - a[1])
      .map(([reason, n]) => `${reason.replaceAll("_", " ")} ${n}`)
      .join(", ");
    now.set(source, {
      subject: source,
      source,
      summary: `${source} refused ${s.total.toLocaleString("en")} deliveries in 10 minutes (threshold ${threshold}): ${reasons}`,
      detail: { refused: s.total, reasons: s.reasons },
    });
  }
  return diff(
    tx,
    "refusal_rate",
    now,
    (source) =>
      `${source} refused ${(bySource.get(source)?.total ?? 0).toLocaleString("en")} deliveries in the last 10 minutes`,
    resolveAfterMs,
  );
}

export interface ListedSource {
  slug: string;
  state: SourceState;
}

/**
 * Folds new webhook_delivery rows into alert_source_activity: the table has no index by source and time,
 * so each tick reads only what arrived since the last one (a minute of overlap covers claims that committed
 * late; a claim commits within WEBHOOK_CLAIM_TIMEOUT_MS of its received_at). The first scan reads `hours`
 * back, so a source quiet for that long is known to be.
 */
async function scanDeliveries(tx: Tx, hours: number, scannedTo: string | undefined): Promise<void> {
  const floor = sql`now() - make_interval(hours => ${hours}::int) - interval '1 minute'`;
  const from = scannedTo ? sql`greatest(${scannedTo}::timestamptz - interval '1 minute', ${floor})` : floor;
  await tx.execute(sql`
    insert into alert_source_activity (source, last_delivery_at, first_seen_at)
    select source, max(received_at), ${from}
    from webhook_delivery
    where received_at > ${from}
    group by source
    on conflict (source) do update
      set last_delivery_at = greatest(alert_source_activity.last_delivery_at, excluded.last_delivery_at)`);
  await tx.execute(sql`
    insert into alert_evaluator (id, deliveries_scanned_to) values (1, now())
    on conflict (id) do update set deliveries_scanned_to = now()`);
}

/** Active sources without a delivery for more than `hours`. */
export async function silenceOutcome(
  tx: Tx,
  hours: number,
  sources: readonly ListedSource[],
  resolveAfterMs = 0,
): Promise<RuleOutcome> {
  const [state] = rowsOf<{ scanned_to: string | null }>(
    await tx.execute(sql`select deliveries_scanned_to::text as scanned_to from alert_evaluator where id = 1`),
  );
  const scannedTo = state?.scanned_to ?? undefined;
  await scanDeliveries(tx, hours, scannedTo);
  const active = sources.filter((s) => s.state === "active").map((s) => s.slug);
  // A source seen for the first time: at the first scan, quiet since that scan's start; afterwards from now
  // (a new source gets its threshold's time before it counts as silent).
  if (active.length > 0) {
    const since = !scannedTo ? sql`now() - make_interval(hours => ${hours}::int) - interval '1 minute'` : sql`now()`;
    await tx.execute(sql`
      insert into alert_source_activity (source, last_delivery_at, first_seen_at)
      select unnest(${pgArray(active, "text")}), null, ${since}
      on conflict (source) do nothing`);
  }
  const rows = rowsOf<{ source: string; last: string | null; since: string; silent_seconds: number }>(
    await tx.execute(sql`
      select source, last_delivery_at::text as last, first_seen_at::text as since,
             extract(epoch from now() - coalesce(last_delivery_at, first_seen_at))::float8 as silent_seconds
      from alert_source_activity`),
  );
  const bySource = new Map(rows.map((r) => [r.source, r]));
  const now = new Map<string, Candidate>();
  for (const slug of active) {
    const r = bySource.get(slug);
    if (!r || Number(r.silent_seconds) <= hours * 3600) continue;
    const silentHours = Math.floor(Number(r.silent_seconds) / 3600);
    now.set(slug, {
      subject: slug,
      source: slug,
      summary: `${slug} has had no delivery for ${silentHours} h (threshold ${hours} h; ${
        r.last ? `last one ${utc(asDate(r.last))}` : `none since ${utc(asDate(r.since))}`
      })`,
      detail: { lastDeliveryAt: r.last ? asDate(r.last).toISOString() : null, silentHours },
    });
  }
  return diff(
    tx,
    "source_silent",
    now,
    (slug) => {
      const r = bySource.get(slug);
      if (!active.includes(slug)) return `${slug} is no longer an active source`;
      return r?.last ? `${slug} received a delivery at ${utc(asDate(r.last))}` : `${slug} is no longer silent`;
    },
    resolveAfterMs,
  );
}

/**
 * Destinations whose breaker is open (lib/forward: a run of failed attempts), one incident each; resolved once one
 * answers again (its run of failures ends), or it is disabled.
 */
export async function destinationOutcome(tx: Tx, resolveAfterMs = 0): Promise<RuleOutcome> {
  const rows = rowsOf<{ name: string; failures: number; until: string | null; last_error: string | null }>(
    await tx.execute(sql`
      select d.name, d.failures_in_row as failures, d.breaker_until::text as until,
        (select a.error from forward_attempt a where a.destination = d.name order by a.id desc limit 1) as last_error
      from forward_destination d
      where d.state <> 'disabled' and d.breaker_until is not null`),
  );
  const now = new Map<string, Candidate>();
  for (const r of rows)
    now.set(r.name, {
      subject: r.name,
      summary: `destination ${r.name} failed ${r.failures} times in a row; forwards paused until ${utc(asDate(r.until!))}${
        r.last_error ? ` (last: ${r.last_error.slice(0, 200)})` : ""
      }`,
      detail: { failuresInRow: Number(r.failures), breakerUntil: asDate(r.until!).toISOString() },
    });
  return diff(tx, "destination_failing", now, (name) => `destination ${name} is answering again`, resolveAfterMs);
}
