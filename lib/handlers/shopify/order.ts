import { shopifyId } from "@/lib/providers/shopify";
import { isoToMicros } from "@/lib/providers/time";
import { inputError, objectAt, optionalString, stringAt, type Where } from "../read";
import { defineSnapshotHandler } from "../types";
import { writeOrder, writeOrders, type OrderState } from "./order-store";

/** A date the payload gives as text; one that is none is the payload's fault, and no retry mends it. */
function dateAt(text: string, where: Where & { name: string }): Date {
  const d = new Date(text);
  if (Number.isNaN(d.getTime()))
    throw inputError(`payload's ${where.name} is not a date: ${text.slice(0, 40)}`, where, "not-a-date");
  return d;
}

/** A Shopify webhook's body is the order itself: its root, as messages name it. */
const ORDER = { name: "order", path: [] } as const;

/** orders/create|updated|cancelled → order, versioned by the order's updated_at. */
export const shopifyOrder = defineSnapshotHandler<OrderState>({
  source: "shopify",
  types: ["orders/create", "orders/updated", "orders/cancelled"],
  read({ payload }) {
    const o = objectAt(payload, "");
    const externalId = shopifyId(o) ?? stringAt(o, "id", ORDER);
    const version = isoToMicros(o.updated_at);
    if (version === undefined)
      throw inputError("payload has no order.updated_at timestamp", { name: "order", path: ["updated_at"] }, "missing");
    const cancelled = optionalString(o, "cancelled_at");
    const state: OrderState = {
      externalId,
      name: optionalString(o, "name"),
      email: optionalString(o, "email"),
      financialStatus: optionalString(o, "financial_status"),
      fulfillmentStatus: optionalString(o, "fulfillment_status"),
      totalPrice: optionalString(o, "total_price"),
      currency: optionalString(o, "currency"),
      cancelledAt: cancelled ? dateAt(cancelled, { name: "order.cancelled_at", path: ["cancelled_at"] }) : null,
    };
    return { entity: { type: "order", id: externalId, version }, state };
  },
  // The header is not signed (Shopify signs the body only), but a captured body re-sent with another one is a
  // duplicate by its hash (lib/providers/shopify.ts, unsignedId): the copy that claimed first is what is read.
  finerTime: {
    label: "X-Shopify-Triggered-At",
    read: ({ headers }) => isoToMicros(headers?.["x-shopify-triggered-at"] ?? headers?.["shopify-triggered-at"]),
  },
  write: (tx, state, ctx) => writeOrder(tx, { state, ...ctx }),
  writeMany: (tx, items) => writeOrders(tx, items),
});
