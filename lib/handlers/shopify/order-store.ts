import { sql } from "drizzle-orm";
import { planPerCall, rowsOf, type Tx } from "@/db/client";
import { pgArray, pgArrays } from "@/db/pg-array";
import { chainedChanges, lastPerEntity } from "../batch-write";
import type { Changes, SnapshotWrite } from "../types";

export interface OrderState {
  externalId: string;
  name: string | null;
  email: string | null;
  financialStatus: string | null;
  fulfillmentStatus: string | null;
  totalPrice: string | null;
  currency: string | null;
  cancelledAt: Date | null;
}

const FIELDS = [
  "name",
  "email",
  "financialStatus",
  "fulfillmentStatus",
  "totalPrice",
  "currency",
  "cancelledAt",
] as const;
type Fields = Pick<OrderState, (typeof FIELDS)[number]>;
const fieldsOf = ({ externalId: _id, ...fields }: OrderState): Fields => fields;

interface OrderRow {
  external_id: string;
  name: string | null;
  email: string | null;
  financial_status: string | null;
  fulfillment_status: string | null;
  total_price: string | null;
  currency: string | null;
  cancelled_at: string | Date | null;
}

/**
 * Order writes in one statement, one event's or a whole batch's: each order's last state is upserted, guarded by
 * version (the row moves only forward), and the rows as they were come back, so each write's changes are diffed
 * against what the write before it left (the stored row for the first of a chain), as lib/handlers/subscription-store.ts.
 */
export async function writeOrders(tx: Tx, items: readonly SnapshotWrite<OrderState>[]): Promise<Changes[]> {
  if (items.length === 0) return [];
  const finals = lastPerEntity(items);
  const col = (f: (w: SnapshotWrite<OrderState>) => string | number | null) => finals.map(f);
  const old = rowsOf<OrderRow>(
    await tx.execute(sql`${planPerCall}
      with v as (
        select * from unnest(${pgArrays([
          [col((w) => w.state.externalId), "text"],
          [col((w) => w.state.name), "text"],
          [col((w) => w.state.email), "text"],
          [col((w) => w.state.financialStatus), "text"],
          [col((w) => w.state.fulfillmentStatus), "text"],
          [col((w) => w.state.totalPrice), "text"],
          [col((w) => w.state.currency), "text"],
          [col((w) => w.state.cancelledAt?.toISOString() ?? null), "timestamptz"],
          [col((w) => w.entity.version), "bigint"],
          [col((w) => w.event.eventId), "text"],
        ])}) as v(external_id, name, email, financial_status, fulfillment_status, total_price, currency, cancelled_at,
                  version, event_id)
      ), old as (
        select o.external_id, o.name, o.email, o.financial_status, o.fulfillment_status, o.total_price, o.currency,
               o.cancelled_at
        -- The batch's ids as one array on the primary key, planned per call (as in ../subscription-store.ts).
        from "order" o
        where o.source = 'shopify' and o.external_id = any(${pgArray(
          col((w) => w.state.externalId),
          "text",
        )})
      ), up as (
        insert into "order" (source, external_id, name, email, financial_status, fulfillment_status, total_price,
                             currency, cancelled_at, version, updated_by_event, updated_at)
        select 'shopify', external_id, name, email, financial_status, fulfillment_status, total_price, currency,
               cancelled_at, version, event_id, now()
        from v order by external_id
        on conflict (source, external_id) do update set name = excluded.name, email = excluded.email,
          financial_status = excluded.financial_status, fulfillment_status = excluded.fulfillment_status,
          total_price = excluded.total_price, currency = excluded.currency, cancelled_at = excluded.cancelled_at,
          version = excluded.version, updated_by_event = excluded.updated_by_event, updated_at = now()
        where "order".version <= excluded.version
      )
      select * from old`),
  );
  const stored = new Map<string, Fields>(
    old.map((r) => [
      r.external_id,
      {
        name: r.name,
        email: r.email,
        financialStatus: r.financial_status,
        fulfillmentStatus: r.fulfillment_status,
        totalPrice: r.total_price,
        currency: r.currency,
        cancelledAt: r.cancelled_at === null ? null : new Date(r.cancelled_at),
      },
    ]),
  );
  return chainedChanges(items, stored, fieldsOf, FIELDS);
}

/** One event's write: the batch statement with one item. */
export const writeOrder = async (tx: Tx, item: SnapshotWrite<OrderState>): Promise<Changes> =>
  (await writeOrders(tx, [item]))[0] ?? {};
