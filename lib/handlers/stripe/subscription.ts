import { withArticle } from "@/lib/format/words";
import { below, firstPriceId, inputError, integerAt, objectAt, optionalString, stringAt, type Where } from "../read";
import { writeSubscription, writeSubscriptions, type SubscriptionState } from "../subscription-store";
import { defineSnapshotHandler } from "../types";

/**
 * customer.subscription.* → subscription. The version is event.created (seconds): data.object.created
 * is the subscription's birth and never changes across updates. A delete keeps the row as canceled at
 * its version, so a late, older update cannot bring it back.
 */
function stateOf(
  object: Record<string, unknown>,
  deleted: boolean,
  where: Where & { name: string },
): SubscriptionState {
  if (object.object !== undefined && object.object !== "subscription")
    throw inputError(
      `${where.name} is ${withArticle(String(object.object))}, not a subscription`,
      below(where, "object"),
      "wrong-object",
    );
  const customer = object.customer;
  return {
    externalId: stringAt(object, "id", where),
    customerId:
      typeof customer === "string"
        ? customer
        : typeof customer === "object" && customer
          ? optionalString(customer as Record<string, unknown>, "id")
          : null,
    plan: firstPriceId(object.items, below(where, "items", "data")),
    status: deleted ? "canceled" : stringAt(object, "status", where),
  };
}

export const stripeSubscription = defineSnapshotHandler<SubscriptionState>({
  source: "stripe",
  types: ["customer.subscription.created", "customer.subscription.updated", "customer.subscription.deleted"],
  read({ payload, eventType }) {
    const object = objectAt(payload, "data.object");
    const state = stateOf(object, eventType === "customer.subscription.deleted", {
      name: "data.object",
      path: ["data", "object"],
    });
    const version = integerAt(payload as Record<string, unknown>, "created", { name: "event", path: [] });
    return { entity: { type: "subscription", id: state.externalId, version }, state };
  },
  write: (tx, state, ctx) => writeSubscription(tx, "stripe", { state, ...ctx }),
  writeMany: (tx, items) => writeSubscriptions(tx, "stripe", items),
  // *.updated events carry the changed fields' previous values: the order of two events in one second.
  chain({ payload }) {
    const data = (payload as { data?: { object?: unknown; previous_attributes?: unknown } } | null)?.data;
    if (!data || typeof data.object !== "object" || data.object === null) return undefined;
    const previous = data.previous_attributes;
    return {
      after: data.object as Record<string, unknown>,
      previous: typeof previous === "object" && previous !== null ? (previous as Record<string, unknown>) : undefined,
    };
  },
  current: {
    path: (entity) => `/v1/subscriptions/${encodeURIComponent(entity.id)}`,
    state: (body) => stateOf(objectAt(body, ""), false, { name: "the API's subscription", path: null }),
  },
});
