import { and, eq, sql } from "drizzle-orm";
import { order } from "@/db/schema";
import { shopifyId } from "@/lib/providers/shopify";
import { isoToMicros } from "@/lib/providers/time";
import { diff, objectAt, optionalString, stringAt } from "../read";
import { defineSnapshotHandler, HandlerInputError } from "../types";

interface OrderState {
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

/** orders/create|updated|cancelled → order, versioned by the order's updated_at. */
export const shopifyOrder = defineSnapshotHandler<OrderState>({
  source: "shopify",
  types: ["orders/create", "orders/updated", "orders/cancelled"],
  read({ payload }) {
    const o = objectAt(payload, "");
    const externalId = shopifyId(o) ?? stringAt(o, "id", "order");
    const version = isoToMicros(o.updated_at);
    if (version === undefined) throw new HandlerInputError("payload has no order.updated_at timestamp");
    const cancelled = optionalString(o, "cancelled_at");
    const state: OrderState = {
      externalId,
      name: optionalString(o, "name"),
      email: optionalString(o, "email"),
      financialStatus: optionalString(o, "financial_status"),
      fulfillmentStatus: optionalString(o, "fulfillment_status"),
      totalPrice: optionalString(o, "total_price"),
      currency: optionalString(o, "currency"),
      cancelledAt: cancelled ? new Date(cancelled) : null,
    };
    return { entity: { type: "order", id: externalId, version }, state };
  },
  // The header is not signed (Shopify signs the body only), but a captured body re-sent with another one is a
  // duplicate by its hash (lib/providers/shopify.ts, unsignedId): the copy that claimed first is what is read.
  finerTime: {
    label: "X-Shopify-Triggered-At",
    read: ({ headers }) => isoToMicros(headers?.["x-shopify-triggered-at"] ?? headers?.["shopify-triggered-at"]),
  },
  async write(tx, state, { entity, event }) {
    const key = and(eq(order.source, "shopify"), eq(order.externalId, state.externalId));
    const [before] = await tx.select().from(order).where(key);
    const row = {
      source: "shopify",
      ...state,
      version: entity.version,
      updatedByEvent: event.eventId,
      updatedAt: new Date(),
    };
    // Everything but the key is updated on conflict.
    const { source: _source, externalId: _externalId, ...set } = row;
    await tx
      .insert(order)
      .values(row)
      .onConflictDoUpdate({
        target: [order.source, order.externalId],
        set,
        setWhere: sql`${order.version} <= excluded.version`,
      });
    return diff(before, row, FIELDS);
  },
});
