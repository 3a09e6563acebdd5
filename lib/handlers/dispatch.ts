import { sql } from "drizzle-orm";
import { rowsOf, type Tx } from "@/db/client";
import { type entityTransition, type TieResolution } from "@/db/schema";
import { pgArrays } from "@/db/pg-array";
import type { HandlerLookup } from "./registry";
import { decideTie, type TieDecision } from "./ties";
import {
  type Changes,
  type DeltaHandler,
  type Handler,
  type HandlerEvent,
  type SnapshotHandler,
  type SnapshotWrite,
  type VersionedEntity,
} from "./types";

export type ApplyOutcome = "settled" | "stale" | "ignored" | "tie";
export type TransitionRow = typeof entityTransition.$inferInsert;
/** The outcome, and the timeline row to append (written in bulk with the batch's settle). */
export interface Applied {
  outcome: ApplyOutcome;
  transition?: TransitionRow;
}
/** An event that could not be applied: nothing of it was written, the rest of the batch goes on. */
export interface NotApplied {
  error: unknown;
}

/** A provider API read (GET path) for a source, or undefined when none is configured for it. */
export type ProviderApi = (source: string, path: string) => Promise<unknown>;

export interface ApplyContext {
  handlers: HandlerLookup;
  /** The last resort for a tie: the object's current state from the provider (Stripe, Paddle with a key). */
  providerApi?: ProviderApi;
}

type Prepared =
  | { kind: "ignored" }
  | { kind: "error"; error: unknown }
  | { kind: "delta"; handler: DeltaHandler<unknown>; entity: { type: string; id: string }; input: unknown }
  | { kind: "snapshot"; handler: SnapshotHandler<unknown>; entity: VersionedEntity; state: unknown; key: string };

/** What the guard holds for an entity while it walks the batch: the version and event applied last. */
interface Current {
  version: number;
  eventId: string;
  /** The event itself when it was applied in this batch (its payload is at hand for a tie). */
  event?: HandlerEvent;
  /** No version was applied before this batch (the guard row was inserted by it). */
  fresh: boolean;
  /** Its state is the provider's (from its API), not the event's own. */
  fromApi?: boolean;
}

/** Appended in place: copying the list per event made a batch quadratic in its size. */
function append<K, V>(m: Map<K, V[]>, k: K, v: V): void {
  const list = m.get(k);
  if (list) list.push(v);
  else m.set(k, [v]);
}

/** Key order: the order the guard locks entities in, and so the order of their writes. */
const byKey = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

const entityKey = (source: string, e: { type: string; id: string }) => `${source}\u0000${e.type}\u0000${e.id}`;

function prepare(event: HandlerEvent, handlers: HandlerLookup): Prepared {
  // Test events change no business state, whatever their type: stored, verified and shown, never applied.
  if (event.test) return { kind: "ignored" };
  let handler: Handler | undefined;
  try {
    handler = handlers(event.source, event.eventType);
    if (!handler) return { kind: "ignored" };
    if (handler.kind === "delta") {
      const { entity, input } = handler.read(event);
      return { kind: "delta", handler, entity, input };
    }
    const { entity, state } = handler.read(event);
    return { kind: "snapshot", handler, entity, state, key: entityKey(event.source, entity) };
  } catch (error) {
    return { kind: "error", error };
  }
}

/** An entity's last applied version, stored once the batch's writes are done. */
interface Final {
  entity: VersionedEntity;
  source: string;
  eventId: string;
  version: number;
}

/** What the batch's decisions leave to do, filled in lease order. */
interface Plan {
  results: (Applied | NotApplied)[];
  /** Writes without writeMany: one chain per entity, each in lease order. */
  writes: Map<string, { index: number; run: () => Promise<Changes> }[]>;
  /** Handlers with writeMany: every write of the batch in one call (in lease order here; by entity at the write). */
  many: Map<SnapshotHandler<unknown>, { index: number; key: string; item: SnapshotWrite<unknown> }[]>;
  finals: Map<string, Final>;
}

/**
 * The version guard for a whole batch, then the business writes. One statement locks every entity the
 * batch's snapshot events touch, in key order, and returns what was applied to each before (its latest
 * committed version: the lock waits for any other worker's transaction on it), so the decisions and the
 * timeline's notes are true under concurrency. Events of one entity are weighed in lease order against
 * what the events before them left: newer applies, older is stale, equal is a tie that chain evidence,
 * the provider's API or (failing both) a person decides (./ties.ts). The business writes follow: one
 * statement per handler that has writeMany, else one chain of writes per entity. One more statement stores
 * each entity's final version. A payload the handler cannot read fails that event alone, before any write.
 */
export async function applyBatch(
  tx: Tx,
  events: readonly HandlerEvent[],
  ctx: ApplyContext,
): Promise<(Applied | NotApplied)[]> {
  const prepared = events.map((e) => prepare(e, ctx.handlers));
  const current = await lockEntities(tx, events, prepared);
  const plan: Plan = { results: new Array(events.length), writes: new Map(), many: new Map(), finals: new Map() };
  for (let i = 0; i < events.length; i++) {
    const event = events[i]!;
    const p = prepared[i]!;
    if (p.kind !== "snapshot") {
      planOther(tx, plan, i, event, p);
      continue;
    }
    const cur = current.get(p.key)!;
    const order = weigh(p.entity.version, cur);
    const decision: TieDecision | { apply: "event" } | "older" =
      order === "tie"
        ? await decideTie(tx, { event, handler: p.handler, entity: p.entity, current: cur }, ctx.providerApi)
        : order === "newer"
          ? APPLY
          : "older";
    planSnapshot(tx, plan, i, event, p, cur, decision, current);
  }
  await runWrites(tx, plan);
  await storeFinals(tx, [...plan.finals.values()]);
  return plan.results;
}

const APPLY = { apply: "event" } as const;

/** The event's version against what is applied: nothing applied yet, or a higher version, is newer. */
function weigh(version: number, cur: Current): "newer" | "older" | "tie" {
  if (cur.fresh || version > cur.version) return "newer";
  return version < cur.version ? "older" : "tie";
}

/** An ignored event, one its handler could not read, or a delta (applied in its entity's chain). */
function planOther(tx: Tx, plan: Plan, i: number, event: HandlerEvent, p: Exclude<Prepared, { kind: "snapshot" }>) {
  if (p.kind === "ignored") plan.results[i] = { outcome: "ignored" };
  else if (p.kind === "error") plan.results[i] = { error: p.error };
  else {
    const { handler, entity, input } = p;
    append(plan.writes, entityKey(event.source, entity), { index: i, run: () => handler.apply(tx, input, { event }) });
    plan.results[i] = {
      outcome: "settled",
      transition: { ...row(event, entity, null), outcome: "applied", changes: {}, note: "delta" },
    };
  }
}

/** A snapshot event's decision: its timeline row, and if it applies, its write and the entity's new current. */
function planSnapshot(
  tx: Tx,
  plan: Plan,
  i: number,
  event: HandlerEvent,
  p: Extract<Prepared, { kind: "snapshot" }>,
  cur: Current,
  decision: TieDecision | { apply: "event" } | "older",
  current: Map<string, Current>,
) {
  const prior = cur.fresh ? {} : { priorVersion: cur.version, priorEventId: cur.eventId };
  const base = { ...row(event, p.entity, p.entity.version), ...prior };
  if (decision === "older" || decision.apply === "none") {
    // An unresolved tie stays a tie (for a person); a resolved one, or an older version, is stale.
    const older = decision === "older";
    const outcome = older || decision.resolution ? "stale" : "tie";
    const note = older
      ? `older: version ${p.entity.version} < applied version ${cur.version} (event ${cur.eventId})`
      : decision.note;
    plan.results[i] = {
      outcome,
      transition: { ...base, outcome, changes: {}, resolution: older ? null : (decision.resolution ?? null), note },
    };
    return;
  }
  const state = decision.apply === "provider-state" ? decision.state : p.state;
  const resolution: TieResolution | null = "resolution" in decision ? (decision.resolution ?? null) : null;
  const note = "note" in decision ? decision.note : undefined;
  const { handler, entity } = p;
  if (handler.writeMany) append(plan.many, handler, { index: i, key: p.key, item: { state, entity, event } });
  else append(plan.writes, p.key, { index: i, run: () => handler.write(tx, state, { entity, event }) });
  plan.results[i] = {
    outcome: "settled",
    transition: { ...base, outcome: "applied", changes: {}, resolution, note },
  };
  current.set(p.key, {
    version: entity.version,
    eventId: event.eventId,
    event,
    fresh: false,
    fromApi: decision.apply === "provider-state",
  });
  plan.finals.set(p.key, { entity, source: event.source, eventId: event.eventId, version: entity.version });
}

/**
 * The writes: one chain per entity, chains at once (the driver pipelines them), each in lease order; and one
 * statement per writeMany handler for all of its entities (an entity's writes are one handler's: its type's).
 */
async function runWrites(tx: Tx, plan: Plan): Promise<void> {
  const transitionOf = (index: number) => (plan.results[index] as Applied).transition!;
  const ordered = [...plan.writes.entries()].sort(([a], [b]) => byKey(a, b)).map(([, w]) => w);
  const settled = await Promise.allSettled([
    ...ordered.map(async (chain) => {
      for (const w of chain) transitionOf(w.index).changes = await w.run();
    }),
    ...[...plan.many.entries()].map(async ([handler, list]) => {
      // By entity, in key order (the order the guard locked them in); stable, so a chain keeps lease order.
      list.sort((a, b) => byKey(a.key, b.key));
      const changes = await handler.writeMany!(
        tx,
        list.map((l) => l.item),
      );
      list.forEach((l, j) => (transitionOf(l.index).changes = changes[j] ?? {}));
    }),
  ]);
  if (settled.some((r) => r.status === "rejected")) throw firstCause(settled);
}

/** After the first error every later statement fails with 25P02 (transaction aborted): report the cause. */
function firstCause(settled: PromiseSettledResult<unknown>[]): unknown {
  const reasons = settled
    .filter((r): r is PromiseRejectedResult => r.status === "rejected")
    .map((r) => r.reason as unknown);
  return reasons.find((e) => (e as { code?: string })?.code !== "25P02") ?? reasons[0];
}

function row(event: HandlerEvent, entity: { type: string; id: string }, version: number | null): TransitionRow {
  return {
    source: event.source,
    entityType: entity.type,
    entityId: entity.id,
    eventId: event.eventId,
    version,
    outcome: "applied",
    changes: {},
  };
}

/**
 * Locks every entity of the batch's snapshot events in key order and reads what it holds. The no-op
 * update on conflict is what takes the lock and returns the latest committed row; a row this statement
 * inserts carries the entity's first event in the batch, and stands for "nothing applied before".
 */
async function lockEntities(tx: Tx, events: readonly HandlerEvent[], prepared: readonly Prepared[]) {
  const first = new Map<string, { source: string; type: string; id: string; version: number; eventId: string }>();
  prepared.forEach((p, i) => {
    if (p.kind === "snapshot" && !first.has(p.key))
      first.set(p.key, {
        source: events[i]!.source,
        type: p.entity.type,
        id: p.entity.id,
        version: p.entity.version,
        eventId: events[i]!.eventId,
      });
  });
  const current = new Map<string, Current>();
  if (first.size === 0) return current;
  const keys = [...first.entries()].sort(([a], [b]) => byKey(a, b)).map(([, v]) => v);
  const col = <T extends string | number>(f: (k: (typeof keys)[number]) => T) => keys.map(f);
  const rows = rowsOf<{
    source: string;
    entity_type: string;
    entity_id: string;
    version: string | number;
    event_id: string;
    inserted: boolean;
  }>(
    await tx.execute(sql`
      insert into entity_version (source, entity_type, entity_id, version, event_id)
      select * from unnest(${pgArrays([
        [col((k) => k.source), "text"],
        [col((k) => k.type), "text"],
        [col((k) => k.id), "text"],
        [col((k) => k.version), "bigint"],
        [col((k) => k.eventId), "text"],
      ])}) as v(source, entity_type, entity_id, version, event_id)
      order by 1, 2, 3
      on conflict (source, entity_type, entity_id) do update set updated_at = entity_version.updated_at
      returning source, entity_type, entity_id, version, event_id, (xmax = 0) as inserted`),
  );
  for (const r of rows)
    // Every field, in the order planSnapshot writes them: one object shape for the decisions to read.
    current.set(entityKey(r.source, { type: r.entity_type, id: r.entity_id }), {
      version: Number(r.version),
      eventId: r.event_id,
      event: undefined,
      fresh: r.inserted,
      fromApi: false,
    });
  return current;
}

/** Each entity's last applied version and event, in one statement (its row is locked since lockEntities). */
async function storeFinals(
  tx: Tx,
  finals: readonly { entity: VersionedEntity; source: string; eventId: string; version: number }[],
): Promise<void> {
  if (finals.length === 0) return;
  await tx.execute(sql`
    update entity_version ev set version = v.version, event_id = v.event_id, updated_at = now()
    from unnest(${pgArrays([
      [finals.map((f) => f.source), "text"],
      [finals.map((f) => f.entity.type), "text"],
      [finals.map((f) => f.entity.id), "text"],
      [finals.map((f) => f.version), "bigint"],
      [finals.map((f) => f.eventId), "text"],
    ])}) as v(source, entity_type, entity_id, version, event_id)
    where ev.source = v.source and ev.entity_type = v.entity_type and ev.entity_id = v.entity_id`);
}
