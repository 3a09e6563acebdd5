import { sql, type SQL } from "drizzle-orm";
import { rowsOf, type Tx } from "@/db/client";
import type { ForwardStatus } from "@/db/schema/forward";
import { pgArrays } from "@/db/pg-array";
import { destinationMatches, listDestinations, type Destination } from "./destinations";

/** A settled event, as the outbox needs it. `guard`: what the handlers' version guard decided, if one ran. */
export interface SettledForForward {
  source: string;
  eventId: string;
  eventType: string;
  guard?: "applied" | "stale" | "tie";
}

/** One outbox row to write. */
export interface ForwardRow {
  destination: string;
  source: string;
  eventId: string;
  entityKey: string | null;
  version: number | null;
  status: ForwardStatus;
}

/**
 * The outbox write, inside the transaction that settles the events (lib/ledger/process.ts): a forward is
 * committed exactly when its event's settle is. `every` destinations get one pending row per matching event;
 * `newest` ones weigh each versioned event against the newest version queued for its entity at that destination
 * (forward_entity, locked in key order): newer is pending and supersedes the older ones not yet sent, older is
 * `stale`, an equal version from another event is `tie` unless the handlers' guard applied it. A re-processed
 * event finds its row and adds nothing. Returns how many rows are pending, so the forwarder can be woken.
 */
export async function enqueueForwards(tx: Tx, settled: readonly SettledForForward[]): Promise<number> {
  if (settled.length === 0) return 0;
  const destinations = (await listDestinations(tx, { live: true })).filter((d) => d.state !== "disabled");
  if (destinations.length === 0) return 0;
  const pairs: { d: Destination; e: SettledForForward; index: number }[] = [];
  settled.forEach((e, index) => {
    for (const d of destinations) if (destinationMatches(d, e.source, e.eventType)) pairs.push({ d, e, index });
  });
  if (pairs.length === 0) return 0;
  const rows = await weighForwards(tx, pairs);
  if (rows.length === 0) return 0;
  const inserted = rowsOf<{ status: ForwardStatus }>(
    await tx.execute(sql`
      insert into forward (destination, source, event_id, entity_key, entity_version, status)
      select * from unnest(${pgArrays([
        [rows.map((r) => r.destination), "text"],
        [rows.map((r) => r.source), "text"],
        [rows.map((r) => r.eventId), "text"],
        [rows.map((r) => r.entityKey), "text"],
        [rows.map((r) => r.version), "bigint"],
        [rows.map((r) => r.status), "text"],
      ])})
      on conflict (destination, source, event_id) do nothing
      returning status`),
  );
  return inserted.filter((r) => r.status === "pending").length;
}

/**
 * What each (destination, event) pair becomes in the outbox, in the pairs' order: `every` destinations and events
 * with no version a pending row; `newest` ones weighed by the guard (weighNewest). Shared by the settle above and a
 * replay to one destination (./replay-window.ts), so both keep one rule of order.
 */
export async function weighForwards(
  tx: Tx,
  pairs: readonly { d: Destination; e: SettledForForward }[],
): Promise<ForwardRow[]> {
  const rows: ForwardRow[] = [];
  const newest = pairs.filter((p) => p.d.mode === "newest");
  const entities =
    newest.length > 0
      ? await entitiesOf(
          tx,
          newest.map((p) => p.e),
        )
      : new Map<string, Entity>();
  const weighed: typeof newest = [];
  for (const p of pairs) {
    const entity = p.d.mode === "newest" ? entities.get(eventKey(p.e)) : undefined;
    if (!entity) rows.push(row(p.d.name, p.e, null, null, "pending"));
    else weighed.push(p);
  }
  if (weighed.length > 0) rows.push(...(await weighNewest(tx, weighed, entities)));
  return rows;
}

interface Entity {
  key: string;
  version: number;
}

const eventKey = (e: { source: string; eventId: string }) => `${e.source}\u0000${e.eventId}`;
const row = (
  destination: string,
  e: SettledForForward,
  entityKey: string | null,
  version: number | null,
  status: ForwardStatus,
): ForwardRow => ({ destination, source: e.source, eventId: e.eventId, entityKey, version, status });

/** The entity and version each event carried at the claim (webhook_event_body): the order newest mode keeps. */
async function entitiesOf(tx: Tx, events: readonly SettledForForward[]): Promise<Map<string, Entity>> {
  const found = rowsOf<{ source: string; event_id: string; entity_type: string; entity_id: string; version: string }>(
    await tx.execute(sql`
      select b.source, b.event_id, b.entity_type, b.entity_id, b.entity_version::text as version
      from unnest(${pgArrays([
        [events.map((e) => e.source), "text"],
        [events.map((e) => e.eventId), "text"],
      ])}) as v(source, event_id)
      join webhook_event_body b on b.source = v.source and b.event_id = v.event_id
      where b.entity_type is not null and b.entity_id is not null and b.entity_version is not null`),
  );
  return new Map(
    found.map((r) => [
      eventKey({ source: r.source, eventId: r.event_id }),
      { key: JSON.stringify([r.source, r.entity_type, r.entity_id]), version: Number(r.version) },
    ]),
  );
}

/**
 * newest mode's guard. The guard rows are created if missing and locked in (destination, entity) order, so two
 * workers settling the same entity wait on each other rather than deadlock; each event is then weighed in lease
 * order against what the events before it left, the winners stored, and the older rows not yet sent superseded.
 */
async function weighNewest(
  tx: Tx,
  pairs: readonly { d: Destination; e: SettledForForward }[],
  entities: ReadonlyMap<string, Entity>,
): Promise<ForwardRow[]> {
  const guardKey = (d: string, k: string) => `${d}\u0000${k}`;
  const keys = [
    ...new Map(
      pairs.map((p) => {
        const k = entities.get(eventKey(p.e))!.key;
        return [guardKey(p.d.name, k), { destination: p.d.name, entityKey: k }] as const;
      }),
    ).values(),
  ].sort((a, b) =>
    a.destination === b.destination ? cmp(a.entityKey, b.entityKey) : cmp(a.destination, b.destination),
  );
  const cols = pgArrays([
    [keys.map((k) => k.destination), "text"],
    [keys.map((k) => k.entityKey), "text"],
  ]);
  await tx.execute(sql`
    insert into forward_entity (destination, entity_key, version, event_id)
    select destination, entity_key, -1, '' from unnest(${cols}) as v(destination, entity_key)
    order by destination, entity_key
    on conflict do nothing`);
  const locked = rowsOf<{ destination: string; entity_key: string; version: string; event_id: string }>(
    await tx.execute(sql`
      select f.destination, f.entity_key, f.version::text as version, f.event_id
      from unnest(${cols}) as v(destination, entity_key)
      join forward_entity f on f.destination = v.destination and f.entity_key = v.entity_key
      order by f.destination, f.entity_key
      for update of f`),
  );
  const current = new Map(
    locked.map((r) => [guardKey(r.destination, r.entity_key), { version: Number(r.version), eventId: r.event_id }]),
  );
  const out: ForwardRow[] = [];
  const moved = new Map<string, { destination: string; entityKey: string; version: number; eventId: string }>();
  for (const { d, e } of pairs) {
    const entity = entities.get(eventKey(e))!;
    const gk = guardKey(d.name, entity.key);
    const cur = current.get(gk)!;
    let status: ForwardStatus;
    if (cur.eventId === e.eventId) continue; // this event was weighed before (a requeue): its row stands
    if (entity.version > cur.version) status = "pending";
    else if (entity.version < cur.version) status = "stale";
    else status = e.guard === "applied" ? "pending" : "tie";
    out.push(row(d.name, e, entity.key, entity.version, status));
    if (status === "pending") {
      current.set(gk, { version: entity.version, eventId: e.eventId });
      moved.set(gk, { destination: d.name, entityKey: entity.key, version: entity.version, eventId: e.eventId });
    }
  }
  // Two states of one entity in this batch: the older is overtaken before it was ever sent.
  for (const r of out)
    if (r.status === "pending" && moved.get(guardKey(r.destination, r.entityKey!))!.version > r.version!)
      r.status = "superseded";
  const winners = [...moved.values()];
  if (winners.length > 0) {
    const w = pgArrays([
      [winners.map((m) => m.destination), "text"],
      [winners.map((m) => m.entityKey), "text"],
      [winners.map((m) => m.version), "bigint"],
      [winners.map((m) => m.eventId), "text"],
    ]);
    await tx.execute(sql`
      update forward_entity f set version = v.version, event_id = v.event_id
      from unnest(${w}) as v(destination, entity_key, version, event_id)
      where f.destination = v.destination and f.entity_key = v.entity_key`);
    // Not yet sent, now older than what is queued: a newer state supersedes them (one in flight finishes first).
    await tx.execute(sql`
      update forward f set status = 'superseded', lease_token = null, lease_expires_at = null
      from unnest(${w}) as v(destination, entity_key, version, event_id)
      where f.destination = v.destination and f.entity_key = v.entity_key and f.entity_version < v.version
        and f.status in ('pending', 'failed', 'dead')`);
  }
  return out;
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * An erasure's part here (lib/retention/erase.ts), in its transaction: the erased events' forwards not yet sent are
 * deleted, and their attempts' answer excerpts cleared and errors scrubbed (`scrubbedError`, over `a.error`).
 */
export async function eraseForwards(tx: Tx, keys: SQL, scrubbedError: SQL): Promise<void> {
  await tx.execute(sql`
    update forward_attempt a set response_excerpt = null, error = ${scrubbedError}
    from forward f, ${keys}
    where a.forward_id = f.id and f.source = k.source and f.event_id = k.event_id`);
  await tx.execute(sql`
    delete from forward f using ${keys}
    where f.source = k.source and f.event_id = k.event_id and f.status in ('pending', 'failed', 'sending', 'dead')`);
}
