import { sql } from "drizzle-orm";
import { rowsOf, type Db } from "@/db/client";
import type { DestinationState, ForwardFormat, ForwardMode, ForwardStatus } from "@/db/schema/forward";
import { authorize, type Actor } from "@/lib/roles";
import { destinationMatches, listDestinations, type Destination } from "./destinations";
import { forwardId } from "./message";

/** The window the overview's figures cover. */
export const OVERVIEW_HOURS = 24;

export interface DestinationSecretView {
  id: string;
  fingerprint: string;
  createdAt: Date;
  /** null: signs until rotated out. */
  expiresAt: Date | null;
}

/** A destination as its card shows it: settings, health over OVERVIEW_HOURS, backlog; never a secret's value. */
export interface DestinationOverview extends Omit<
  Destination,
  "breakerUntil" | "failuresInRow" | "breakerOpenings" | "url"
> {
  /** The URL as shown to every role: no credentials, no query (either may carry a token). */
  shownUrl: string;
  /** While in the future, the breaker is open: nothing is sent until then (then one probe). */
  breakerOpenUntil: Date | null;
  failuresInRow: number;
  attempts: number;
  /** Share of attempts answered 2xx, 0..1; null without attempts. */
  successRate: number | null;
  p50Ms: number | null;
  p95Ms: number | null;
  pending: number;
  failed: number;
  sending: number;
  /** pending + failed + sending. */
  backlog: number;
  /** The oldest forward still waiting to be delivered (pending or failed). */
  oldestWaitingAt: Date | null;
  lastError: { at: Date; error: string; status: number | null } | null;
  /** Console destinations: the secrets that sign now, by fingerprint. */
  secrets: DestinationSecretView[];
}

/** A URL without what may be secret in it: user and password, and the query's values. */
export function shownUrl(url: string): string {
  if (!URL.canParse(url)) return url;
  const u = new URL(url);
  return `${u.protocol}//${u.host}${u.pathname}${u.search ? "?…" : ""}`;
}

interface FiguresRow {
  name: string;
  attempts: number;
  ok: number;
  p50: number | null;
  p95: number | null;
  pending: number;
  failed: number;
  sending: number;
  oldest: string | Date | null;
  error: string | null;
  error_at: string | Date | null;
  error_status: number | null;
}

const date = (v: string | Date | null) => (v === null ? null : new Date(v));
const num = (v: number | string | null) => (v === null ? null : Number(v));

/** Every destination with its figures (support and up). Each figure reads an index range of one destination. */
export async function listDestinationOverview(db: Db, actor: Actor | undefined): Promise<DestinationOverview[]> {
  authorize(actor, "destinations.read");
  const window = sql`now() - ${OVERVIEW_HOURS} * interval '1 hour'`;
  const [destinations, figures, secrets] = await Promise.all([
    listDestinations(db),
    db.execute(sql`
      select d.name, a.attempts, a.ok, a.p50, a.p95, b.pending, b.failed, b.sending, b.oldest,
        e.error, e.started_at as error_at, e.status_code as error_status
      from forward_destination d
      left join lateral (
        select count(*)::int as attempts, (count(*) filter (where x.error is null))::int as ok,
          percentile_cont(0.5) within group (order by x.duration_ms) as p50,
          percentile_cont(0.95) within group (order by x.duration_ms) as p95
        from forward_attempt x where x.destination = d.name and x.started_at > ${window}
      ) a on true
      left join lateral (
        select (count(*) filter (where f.status = 'pending'))::int as pending,
          (count(*) filter (where f.status = 'failed'))::int as failed,
          (count(*) filter (where f.status = 'sending'))::int as sending,
          min(f.created_at) filter (where f.status in ('pending', 'failed')) as oldest
        from forward f where f.destination = d.name and f.status in ('pending', 'failed', 'sending')
      ) b on true
      left join lateral (
        select x.error, x.started_at, x.status_code from forward_attempt x
        where x.destination = d.name and x.started_at > ${window} and x.error is not null
        order by x.started_at desc limit 1
      ) e on true`),
    db.execute(sql`
      select id, destination, fingerprint, created_at, expires_at from forward_destination_secret
      where expires_at is null or expires_at > now()
      order by created_at, id`),
  ]);
  const byName = new Map(rowsOf<FiguresRow>(figures).map((r) => [r.name, r]));
  const secretRows = rowsOf<{
    id: string;
    destination: string;
    fingerprint: string;
    created_at: string | Date;
    expires_at: string | Date | null;
  }>(secrets);
  const now = Date.now();
  return destinations.map((d) => {
    const f = byName.get(d.name);
    const attempts = Number(f?.attempts ?? 0);
    const [pending, failed, sending] = [f?.pending, f?.failed, f?.sending].map((n) => Number(n ?? 0)) as [
      number,
      number,
      number,
    ];
    const { url, breakerUntil, breakerOpenings: _openings, ...rest } = d;
    return {
      ...rest,
      shownUrl: shownUrl(url),
      breakerOpenUntil: breakerUntil && breakerUntil.getTime() > now ? breakerUntil : null,
      attempts,
      successRate: attempts > 0 ? Number(f!.ok) / attempts : null,
      p50Ms: num(f?.p50 ?? null),
      p95Ms: num(f?.p95 ?? null),
      pending,
      failed,
      sending,
      backlog: pending + failed + sending,
      oldestWaitingAt: date(f?.oldest ?? null),
      lastError: f?.error ? { at: new Date(f.error_at!), error: f.error, status: num(f.error_status) } : null,
      secrets: secretRows
        .filter((s) => s.destination === d.name)
        .map((s) => ({
          id: s.id,
          fingerprint: s.fingerprint,
          createdAt: new Date(s.created_at),
          expiresAt: date(s.expires_at),
        })),
    };
  });
}

/** The settings an admin edits, the full URL included (admins only): console destinations, by name. */
export async function listDestinationSettings(db: Db, actor: Actor | undefined): Promise<Destination[]> {
  authorize(actor, "destinations.manage");
  return (await listDestinations(db)).filter((d) => d.origin === "console");
}

export interface ForwardAttemptView {
  id: number;
  number: number;
  startedAt: Date;
  durationMs: number;
  statusCode: number | null;
  /** The destination's words (attacker-controlled: rendered as text only). */
  responseExcerpt: string | null;
  error: string | null;
}

interface DestinationHead {
  destination: string;
  state: DestinationState;
  mode: ForwardMode;
  format: ForwardFormat;
  /** The `webhook-id` every send of this event to this destination carries. */
  webhookId: string;
}

/** Where one event stands at one destination. */
export type EventForward =
  | (DestinationHead & {
      kind: "forward";
      status: ForwardStatus;
      attempts: number;
      createdAt: Date;
      sentAt: Date | null;
      nextAttemptAt: Date;
      lastError: string | null;
      lastStatus: number | null;
      entityVersion: number | null;
      /** newest mode: the version the destination's guard holds for this entity now. */
      guardVersion: number | null;
      attemptList: ForwardAttemptView[];
    })
  /** A live destination whose sources or types leave this event out. */
  | (DestinationHead & { kind: "filter" })
  /** Matches, but no row: the event has not settled yet, or settled before the destination could take it. */
  | (DestinationHead & { kind: "not-queued"; settled: boolean });

/** Attempts shown per forward at most, newest kept. */
const ATTEMPTS_SHOWN = 50;

/** Per destination, this event's forward (with its attempts) or why there is none (support and up). */
export async function getEventForwards(
  db: Db,
  actor: Actor | undefined,
  key: { source: string; eventId: string },
): Promise<EventForward[]> {
  authorize(actor, "events.read");
  const [destinations, events, forwards, attempts] = await Promise.all([
    listDestinations(db),
    db.execute(sql`
      select event_type, status from webhook_event_state where source = ${key.source} and event_id = ${key.eventId}`),
    db.execute(sql`
      select f.destination, f.status, f.attempts, f.created_at, f.sent_at, f.next_attempt_at, f.last_error,
        f.last_status, f.entity_version::text as entity_version, g.version::text as guard_version
      from forward f
      left join forward_entity g on g.destination = f.destination and g.entity_key = f.entity_key
      where f.source = ${key.source} and f.event_id = ${key.eventId}`),
    db.execute(sql`
      select a.id::text as id, f.destination, a.number, a.started_at, a.duration_ms, a.status_code,
        a.response_excerpt, a.error
      from forward f
      cross join lateral (
        select * from forward_attempt x where x.forward_id = f.id order by x.id desc limit ${ATTEMPTS_SHOWN}
      ) a
      where f.source = ${key.source} and f.event_id = ${key.eventId}
      order by a.id`),
  ]);
  const event = rowsOf<{ event_type: string; status: string }>(events)[0];
  if (!event) return [];
  type Row = {
    destination: string;
    status: ForwardStatus;
    attempts: number;
    created_at: string | Date;
    sent_at: string | Date | null;
    next_attempt_at: string | Date;
    last_error: string | null;
    last_status: number | null;
    entity_version: string | null;
    guard_version: string | null;
  };
  const rows = new Map(rowsOf<Row>(forwards).map((r) => [r.destination, r]));
  const attemptRows = rowsOf<{
    id: string;
    destination: string;
    number: number;
    started_at: string | Date;
    duration_ms: number;
    status_code: number | null;
    response_excerpt: string | null;
    error: string | null;
  }>(attempts);
  const out: EventForward[] = [];
  for (const d of destinations) {
    const head: DestinationHead = {
      destination: d.name,
      state: d.state,
      mode: d.mode,
      format: d.format,
      webhookId: forwardId({ destination: d.name, source: key.source, eventId: key.eventId }),
    };
    const r = rows.get(d.name);
    if (r) {
      out.push({
        ...head,
        kind: "forward",
        status: r.status,
        attempts: Number(r.attempts),
        createdAt: new Date(r.created_at),
        sentAt: date(r.sent_at),
        nextAttemptAt: new Date(r.next_attempt_at),
        lastError: r.last_error,
        lastStatus: num(r.last_status),
        entityVersion: num(r.entity_version),
        guardVersion: num(r.guard_version),
        attemptList: attemptRows
          .filter((a) => a.destination === d.name)
          .map((a) => ({
            id: Number(a.id),
            number: Number(a.number),
            startedAt: new Date(a.started_at),
            durationMs: Number(a.duration_ms),
            statusCode: num(a.status_code),
            responseExcerpt: a.response_excerpt,
            error: a.error,
          })),
      });
    } else if (d.state !== "disabled") {
      out.push(
        destinationMatches(d, key.source, event.event_type)
          ? { ...head, kind: "not-queued", settled: event.status === "settled" }
          : { ...head, kind: "filter" },
      );
    }
  }
  return out;
}
