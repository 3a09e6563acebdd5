import { sql, type SQL } from "drizzle-orm";
import { planPerCall, rowsOf, type Tx } from "@/db/client";
import { pgArray, pgArrays } from "@/db/pg-array";
import { chainedChanges, lastPerEntity } from "./batch-write";
import type { Changes, SnapshotWrite } from "./types";

export interface SubscriptionState {
  externalId: string;
  customerId: string | null;
  plan: string | null;
  status: string;
}

const FIELDS = ["customerId", "plan", "status"] as const;
const fieldsOf = (s: SubscriptionState) => ({ customerId: s.customerId, plan: s.plan, status: s.status });

/**
 * Subscription writes in one statement, one event's or a whole batch's (shared by Stripe and Paddle): each
 * subscription's last state is upserted, guarded by version (the row moves only forward, so even a write that
 * slipped past the entity guard could not take it backwards), and the rows as they were come back, so each
 * write's changes are diffed against what the one before it left (the stored row for the first of a chain).
 */
export async function writeSubscriptions(
  tx: Tx,
  source: "stripe" | "paddle",
  items: readonly SnapshotWrite<SubscriptionState>[],
): Promise<Changes[]> {
  if (items.length === 0) return [];
  const finals = lastPerEntity(items);
  const old = rowsOf<{ external_id: string; customer_id: string | null; plan: string | null; status: string }>(
    await tx.execute(subscriptionWriteSql(source, finals)),
  );
  const stored = new Map(
    old.map((r) => [r.external_id, { customerId: r.customer_id, plan: r.plan, status: r.status }]),
  );
  return chainedChanges(items, stored, fieldsOf, FIELDS);
}

/** The statement: upsert each subscription's last state, and return the rows as they were. */
function subscriptionWriteSql(source: "stripe" | "paddle", finals: readonly SnapshotWrite<SubscriptionState>[]): SQL {
  const col = (f: (w: SnapshotWrite<SubscriptionState>) => string | number | null) => finals.map(f);
  return sql`${planPerCall}
      with v as (
        select * from unnest(${pgArrays([
          [col((w) => w.state.externalId), "text"],
          [col((w) => w.state.customerId), "text"],
          [col((w) => w.state.plan), "text"],
          [col((w) => w.state.status), "text"],
          [col((w) => w.entity.version), "bigint"],
          [col((w) => w.event.eventId), "text"],
        ])}) as v(external_id, customer_id, plan, status, version, event_id)
      ), old as (
        -- The batch's ids as one array on the primary key, planned per call (planPerCall): a cached plan made
        -- while the table was empty read every subscription of the source per batch (bench:worker).
        select s.external_id, s.customer_id, s.plan, s.status
        from subscription s where s.source = ${source} and s.external_id = any(${pgArray(
          col((w) => w.state.externalId),
          "text",
        )})
      ), up as (
        insert into subscription (source, external_id, customer_id, plan, status, version, updated_by_event, updated_at)
        select ${source}, external_id, customer_id, plan, status, version, event_id, now() from v
        order by external_id
        on conflict (source, external_id) do update set customer_id = excluded.customer_id, plan = excluded.plan,
          status = excluded.status, version = excluded.version, updated_by_event = excluded.updated_by_event,
          updated_at = now()
        where subscription.version <= excluded.version
      )
      select external_id, customer_id, plan, status from old`;
}

/** One event's write: the batch statement with one item. */
export const writeSubscription = async (
  tx: Tx,
  source: "stripe" | "paddle",
  item: SnapshotWrite<SubscriptionState>,
): Promise<Changes> => (await writeSubscriptions(tx, source, [item]))[0] ?? {};
