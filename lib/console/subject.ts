import { sql, type SQL } from "drizzle-orm";
import { arrivalsSql, duplicateArrivalsSql } from "@/db/delivery-arrivals";
import { z } from "zod";
import { rowsOf, type Db } from "@/db/client";
import { pgArray } from "@/db/pg-array";
import type {
  AttemptOutcome,
  EventResolution,
  EventStatus,
  EventVia,
  TieResolution,
  TransitionOutcome,
} from "@/db/schema";
import { authorize, type Actor } from "@/lib/roles";
import { EVENT_TIME_FIELDS } from "@/lib/providers/time";
import { isProviderKind, type ProviderKind } from "@/lib/providers/types";
import type { ResolvedSource } from "@/lib/sources/types";
import { formatMajor, formatMinor, minorToDecimal } from "@/lib/format/money";
import { presentState, stateTableOf, STATE_TYPES } from "./entity-state";
import { textProblem } from "@/lib/ledger/params";
import { keysRelation, scanMentions } from "@/db/mentions";
import { payloadSql } from "@/db/payload";

/** The newest events a customer view (and its bundle) holds; past it the page says how many more there are. */
export const SUBJECT_EVENT_LIMIT = 500;
/** The GIN probe stops here: more events than this for one value is an id many events share, not a customer. */
export const SUBJECT_PROBE_LIMIT = 10_000;
/**
 * When the search index names no event, the customer view reads raw bodies, newest first, for this long at most
 * (in bounded statements, db/mentions.ts): a page that answers, and says how far it read.
 */
export const SUBJECT_SCAN_BUDGET_MS = 2000;
/** Entities listed with their current state; a customer moves a handful. */
export const SUBJECT_ENTITY_LIMIT = 200;

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** A customer or object id, or an email (stored lower-cased, so searched lower-cased), as search finds it. */
export const SubjectInput = z.object({
  subject: z
    .string()
    .trim()
    .min(1, "enter a customer id or an email")
    .superRefine((v, ctx) => {
      const problem = textProblem(v, 320);
      if (problem) ctx.addIssue({ code: "custom", message: `the subject ${problem}` });
    })
    .transform((v) => (EMAIL.test(v) ? v.toLowerCase() : v)),
});
export type SubjectInput = z.input<typeof SubjectInput>;
export type SourceOf = (slug: string) => Promise<ResolvedSource | undefined>;

export interface SubjectKey {
  source: string;
  eventId: string;
}

const texts = (values: readonly string[]) => pgArray(values, "text");
export { keysRelation };
/** UTC ISO 8601 with PostgreSQL's microseconds, which a JS Date would round away. */
export const isoOf = (column: SQL): SQL => sql`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/**
 * The probe, exported for the EXPLAIN test. Materialized and unordered on purpose: an `order by received_at
 * limit n` beside `subject_ids @>` lets PostgreSQL walk the received index for a rare id (it guesses 0.5 % of
 * rows match), reading the whole table; unordered, the cheap way to the rows is the GIN index.
 */
export function subjectProbeQuery(term: string): SQL {
  return sql`
    with hit as materialized (
      select source, event_id, received_at
      from webhook_event
      where subject_ids @> array[${term}]::text[]
      limit ${SUBJECT_PROBE_LIMIT + 1}
    )
    select source, event_id as "eventId", (select count(*)::int from hit) as found
    from hit
    order by received_at desc, event_id desc, source desc
    limit ${SUBJECT_EVENT_LIMIT}`;
}

export interface SubjectKeys {
  subject: string;
  /** Newest received first, at most SUBJECT_EVENT_LIMIT. */
  keys: SubjectKey[];
  /** Events that mention it, counted up to SUBJECT_PROBE_LIMIT + 1. */
  found: number;
  /** More than SUBJECT_PROBE_LIMIT: `keys` are the newest of the first found, not of the whole ledger. */
  capped: boolean;
  /**
   * The search index named no event, so raw bodies, headers and payloads were read, newest first: how many
   * events, whether that was all of them, in how long. `found` is then what the read found.
   */
  scan?: { read: number; complete: boolean; ms: number };
}

/**
 * Every event that mentions the subject, newest first, bounded (the customer view and the dispute bundle): the
 * search index's, or, when it names none (an id past the extractor's limits), a bounded read of raw bodies.
 */
export async function findSubjectKeys(db: Db, input: SubjectInput): Promise<SubjectKeys> {
  const { subject } = SubjectInput.parse(input);
  const rows = rowsOf<SubjectKey & { found: number }>(await db.execute(subjectProbeQuery(subject)));
  const found = rows[0]?.found ?? 0;
  if (found === 0) {
    const s = await scanMentions(db, subject, { budgetMs: SUBJECT_SCAN_BUDGET_MS, maxMatches: SUBJECT_EVENT_LIMIT });
    const scan = { read: s.read, complete: s.complete, ms: s.ms };
    return { subject, keys: s.keys.slice(0, SUBJECT_EVENT_LIMIT), found: s.keys.length, capped: false, scan };
  }
  const keys = rows.map((r) => ({ source: r.source, eventId: r.eventId }));
  return { subject, keys, found, capped: found > SUBJECT_PROBE_LIMIT };
}

// Each provider's time field, read from the payload as a fact (names from EVENT_TIME_FIELDS: no quote in them).
const TIME_FACTS = sql.raw(
  [...new Set(Object.values(EVENT_TIME_FIELDS))].map((f) => `'${f}', p.payload->'${f}'`).join(", "),
);

/** The events' rows, exported for the EXPLAIN test: every lookup is by primary key or an event's own index. */
export function subjectEventsQuery(keys: readonly SubjectKey[]): SQL {
  return sql`
    select e.source, e.event_id as "eventId", e.event_type as "eventType", e.status, e.via, e.test, e.attempts,
           e.last_error as "lastError", e.outcome as "eventOutcome", e.resolution,
           ${isoOf(sql`e.received_at`)} as "receivedAt", e.entity_type as "entityType",
           e.entity_id as "entityId", e.entity_version::float8 as "entityVersion", e.intake_note as "intakeNote",
           octet_length(e.raw_body) as "bodyBytes", d.deliveries, d.duplicates, a.outcome as "lastOutcome",
           a.error as "lastAttemptError",
           jsonb_build_object(
             ${TIME_FACTS}, 'object', p.payload#>'{data,object,object}',
             'amount_paid', p.payload#>'{data,object,amount_paid}', 'object_currency', p.payload#>'{data,object,currency}',
             'total_price', p.payload->'total_price', 'currency', p.payload->'currency') as facts
    from ${keysRelation(keys)}
    join webhook_event e on e.source = k.source and e.event_id = k.event_id
    cross join lateral (select ${payloadSql("e")} as payload) p
    cross join lateral (
      select ${arrivalsSql("w")}::int as deliveries, ${duplicateArrivalsSql("w")}::int as duplicates
      from webhook_delivery w
      where w.source = e.source and w.event_id = e.event_id
    ) d
    left join lateral (
      select outcome, error
      from webhook_attempt x
      where x.source = e.source and x.event_id = e.event_id
      order by x.number desc, x.id desc
      limit 1
    ) a on true`;
}

export interface SubjectTransition extends SubjectKey {
  entityType: string;
  entityId: string;
  version: number | null;
  outcome: TransitionOutcome;
  resolution: TieResolution | null;
  note: string | null;
  changes: Record<string, { from: unknown; to: unknown }>;
  priorVersion: number | null;
  priorEventId: string | null;
  recordedAt: string;
}

/** The timeline rows these events wrote, oldest first (entity_transition_event_idx); exported for the EXPLAIN test. */
export function subjectTransitionsQuery(keys: readonly SubjectKey[]): SQL {
  // Versions stay below 2^53 (microseconds at most): float8 holds them exactly.
  return sql`
    select t.source, t.event_id as "eventId", t.entity_type as "entityType", t.entity_id as "entityId",
           t.version::float8 as version, t.outcome, t.resolution, t.note, t.changes,
           t.prior_version::float8 as "priorVersion", t.prior_event_id as "priorEventId",
           ${isoOf(sql`t.recorded_at`)} as "recordedAt"
    from ${keysRelation(keys)}
    join entity_transition t on t.source = k.source and t.event_id = k.event_id
    order by t.id`;
}

/** An amount as the payload states it: `value` in major units ("20.00"), `text` to show, `field` where it was read. */
export interface Amount {
  value: string;
  currency: string;
  /** "20.00 USD", "2,000 JPY": lib/format/money.ts. */
  text: string;
  field: string;
}

export interface SubjectEvent extends SubjectKey {
  /** The source's provider kind as configured now; undefined for a source no longer configured. */
  provider: ProviderKind | undefined;
  eventType: string;
  status: EventStatus;
  via: EventVia;
  /** Sent by the console's test button: never applied. */
  test: boolean;
  attempts: number;
  lastError: string | null;
  /** What settling it did (webhook_event.outcome), and a person's decision on it when it was dead. */
  eventOutcome: AttemptOutcome | null;
  resolution: EventResolution | null;
  receivedAt: string;
  /** When the provider says it happened (Stripe `created`, Paddle `occurred_at`, …); null: only the received time. */
  providerTime: { at: string; field: string } | null;
  amount: Amount | null;
  entity: { type: string; id: string; version: number | null } | null;
  intakeNote: string | null;
  bodyBytes: number;
  deliveries: number;
  duplicates: number;
  lastAttempt: { outcome: AttemptOutcome; error: string | null } | null;
  transitions: SubjectTransition[];
}

/** Unix seconds (Stripe's created, Slack's event_time) or ISO 8601 (Stripe's thin events, Paddle, Shopify). */
function instantOf(value: unknown): string | undefined {
  const ms =
    typeof value === "number" && Number.isSafeInteger(value) && value >= 0 && value < 1e11
      ? value * 1000
      : typeof value === "string" && value.length <= 64 && /^\d{4}-\d{2}-\d{2}T/.test(value)
        ? Date.parse(value)
        : NaN;
  return Number.isFinite(ms) ? new Date(ms).toISOString() : undefined;
}

const CURRENCY = /^[A-Za-z]{3}$/;
type Facts = Partial<Record<string, unknown>>;

function amountOf(kind: ProviderKind | undefined, f: Facts): Amount | null {
  const currency = (v: unknown) => (typeof v === "string" && CURRENCY.test(v) ? v.toUpperCase() : undefined);
  const invoiceCurrency = currency(f.object_currency);
  if (kind === "stripe" && f.object === "invoice" && Number.isSafeInteger(f.amount_paid) && invoiceCurrency) {
    const value = minorToDecimal(f.amount_paid as number, invoiceCurrency);
    const text = formatMinor(f.amount_paid as number, invoiceCurrency);
    if (value) return { value, currency: invoiceCurrency, text, field: "data.object.amount_paid" };
  }
  const price = typeof f.total_price === "number" ? String(f.total_price) : f.total_price;
  const orderCurrency = currency(f.currency);
  if (kind === "shopify" && orderCurrency && typeof price === "string" && /^-?\d{1,15}(\.\d{1,6})?$/.test(price))
    return { value: price, currency: orderCurrency, text: formatMajor(price, orderCurrency), field: "total_price" };
  return null;
}

/** A provider kind per slug: the configured source's, else a legacy slug named after its kind. */
export async function kindsOf(slugs: Iterable<string>, sourceOf: SourceOf): Promise<Map<string, ProviderKind>> {
  const out = new Map<string, ProviderKind>();
  for (const slug of new Set(slugs)) {
    const kind = (await sourceOf(slug))?.provider ?? (isProviderKind(slug) ? slug : undefined);
    if (kind) out.set(slug, kind);
  }
  return out;
}

type EventRow = Omit<
  SubjectEvent,
  "provider" | "providerTime" | "amount" | "entity" | "lastAttempt" | "transitions"
> & {
  entityType: string | null;
  entityId: string | null;
  entityVersion: number | null;
  lastOutcome: AttemptOutcome | null;
  lastAttemptError: string | null;
  facts: Facts;
};

/** The events behind these keys, newest first by when the provider says each happened, then by arrival. */
export async function subjectEvents(db: Db, keys: readonly SubjectKey[], sourceOf: SourceOf): Promise<SubjectEvent[]> {
  if (keys.length === 0) return [];
  const rows = rowsOf<EventRow>(await db.execute(subjectEventsQuery(keys)));
  const [transitions, kinds] = await Promise.all([
    db.execute(subjectTransitionsQuery(keys)).then((r) => rowsOf<SubjectTransition>(r)),
    kindsOf(
      rows.map((r) => r.source),
      sourceOf,
    ),
  ]);
  const events = rows.map(({ entityType, entityId, entityVersion, lastOutcome, lastAttemptError, facts, ...r }) => {
    const provider = kinds.get(r.source);
    const field = provider ? EVENT_TIME_FIELDS[provider] : undefined;
    const at = field ? instantOf(facts[field]) : undefined;
    return {
      ...r,
      provider,
      bodyBytes: Number(r.bodyBytes),
      providerTime: field && at ? { at, field } : null,
      amount: amountOf(provider, facts),
      entity: entityType && entityId ? { type: entityType, id: entityId, version: entityVersion } : null,
      lastAttempt: lastOutcome ? { outcome: lastOutcome, error: lastAttemptError } : null,
      transitions: transitions.filter((t) => t.source === r.source && t.eventId === r.eventId),
    };
  });
  const when = (e: SubjectEvent) => e.providerTime?.at ?? e.receivedAt;
  // UTC ISO strings compare as text.
  return events.sort(
    (a, b) =>
      when(b).localeCompare(when(a)) ||
      b.receivedAt.localeCompare(a.receivedAt) ||
      b.eventId.localeCompare(a.eventId) ||
      b.source.localeCompare(a.source),
  );
}

export interface SubjectEntity {
  source: string;
  entityType: string;
  entityId: string;
  /** The newest version applied (entity_version), if any. */
  current: { version: number; eventId: string; updatedAt: string } | null;
  /** The business rows kept for it now (a customer's totals: one per currency); empty when there is none yet. */
  state: Record<string, unknown>[];
  /** No handler keeps a business table for this entity type. */
  untracked: boolean;
  /** A timeline row of these events is for it: they moved it. Else they only name it (an invoice names its customer). */
  moved: boolean;
  /** The entities that the events naming it moved instead (an invoice's event moves its customer's total). */
  movedInstead: { entityType: string; entityId: string }[];
}

/** The entities these events moved, then those they only name, each with its current version and business rows. */
export async function subjectEntities(db: Db, events: readonly SubjectEvent[]) {
  const seen = new Map<string, SubjectEntity>();
  const id = (source: string, type: string, entityId: string) => JSON.stringify([source, type, entityId]);
  const add = (source: string, entityType: string, entityId: string) => {
    const key = id(source, entityType, entityId);
    let x = seen.get(key);
    if (!x) {
      const untracked = !stateTableOf(entityType);
      x = { source, entityType, entityId, current: null, state: [], untracked, moved: false, movedInstead: [] };
      seen.set(key, x);
    }
    return x;
  };
  for (const e of events) for (const t of e.transitions) add(t.source, t.entityType, t.entityId).moved = true;
  for (const e of events) {
    if (!e.entity) continue;
    const x = add(e.source, e.entity.type, e.entity.id);
    for (const t of e.transitions)
      if (![x, ...x.movedInstead].some((m) => m.entityType === t.entityType && m.entityId === t.entityId))
        x.movedInstead.push({ entityType: t.entityType, entityId: t.entityId });
  }
  const all = [...seen.values()];
  const entities = all.slice(0, SUBJECT_ENTITY_LIMIT);
  const cut = all.length > entities.length;
  if (entities.length === 0) return { entities, cut };
  const versions = rowsOf<{ source: string; type: string; id: string; version: number; eventId: string; at: string }>(
    await db.execute(sql`
      select v.source, v.entity_type as type, v.entity_id as id, v.version::float8 as version,
             v.event_id as "eventId", ${isoOf(sql`v.updated_at`)} as at
      from unnest(${texts(entities.map((x) => x.source))}, ${texts(entities.map((x) => x.entityType))},
                  ${texts(entities.map((x) => x.entityId))}) as k(source, entity_type, entity_id)
      join entity_version v on v.source = k.source and v.entity_type = k.entity_type and v.entity_id = k.entity_id`),
  );
  for (const v of versions) {
    const x = seen.get(id(v.source, v.type, v.id));
    if (x) x.current = { version: v.version, eventId: v.eventId, updatedAt: v.at };
  }
  for (const type of STATE_TYPES) {
    const wanted = entities.filter((x) => x.entityType === type);
    if (wanted.length === 0) continue;
    const { table, key } = stateTableOf(type)!;
    const rows = rowsOf<Record<string, unknown>>(
      await db.execute(sql`
        select s.* from ${sql.identifier(table)} s
        where (s.source, s.${sql.identifier(key)}) in (
          select * from unnest(${texts(wanted.map((x) => x.source))}, ${texts(wanted.map((x) => x.entityId))}))`),
    );
    for (const row of rows)
      seen.get(id(String(row.source), type, String(row[key])))?.state.push(presentState(type, row));
  }
  return { entities, cut };
}

export interface SubjectView {
  subject: string;
  events: SubjectEvent[];
  found: number;
  capped: boolean;
  entities: SubjectEntity[];
  /** More entities than SUBJECT_ENTITY_LIMIT were moved: the list is cut. */
  entitiesCut: boolean;
  /** Set when the search index named no event and raw bodies were read instead (SubjectKeys.scan). */
  scan?: SubjectKeys["scan"];
}

/**
 * Everything the ledger knows about one customer id or email across sources: its events (bounded, newest
 * first), how each ended, and the entities they moved with their state now.
 */
export async function getSubjectView(
  db: Db,
  actor: Actor | undefined,
  input: SubjectInput,
  sourceOf: SourceOf,
): Promise<SubjectView> {
  authorize(actor, "events.read");
  const { subject, keys, found, capped, scan } = await findSubjectKeys(db, input);
  const events = await subjectEvents(db, keys, sourceOf);
  const { entities, cut } = await subjectEntities(db, events);
  return { subject, events, found, capped, entities, entitiesCut: cut, ...(scan ? { scan } : {}) };
}
