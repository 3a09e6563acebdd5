import { isoToMicros } from "@/lib/providers/time";
import { below, firstPriceId, inputError, objectAt, optionalString, stringAt } from "../read";
import { writeSubscription, writeSubscriptions, type SubscriptionState } from "../subscription-store";
import { defineSnapshotHandler } from "../types";

/** A tie's answer from Paddle's API: not in the payload. */
const API_ANSWER = { name: "the API's subscription", path: null };

/** subscription.* → subscription, versioned by occurred_at in microseconds (Paddle sends six digits). */
export const paddleSubscription = defineSnapshotHandler<SubscriptionState>({
  source: "paddle",
  types: ["subscription.created", "subscription.updated", "subscription.canceled"],
  read({ payload, eventType }) {
    const data = objectAt(payload, "data");
    const externalId = stringAt(data, "id", "data");
    const version = isoToMicros((payload as Record<string, unknown>).occurred_at);
    if (version === undefined) throw inputError("payload has no occurred_at timestamp", "occurred_at", "missing");
    const state: SubscriptionState = {
      externalId,
      customerId: optionalString(data, "customer_id"),
      plan: firstPriceId(data.items, "data.items"),
      status: eventType === "subscription.canceled" ? "canceled" : stringAt(data, "status", "data"),
    };
    return { entity: { type: "subscription", id: externalId, version }, state };
  },
  write: (tx, state, ctx) => writeSubscription(tx, "paddle", { state, ...ctx }),
  writeMany: (tx, items) => writeSubscriptions(tx, "paddle", items),
  // Paddle sends no previous values; a tie (rare: microsecond versions) asks GET /subscriptions/{id}.
  current: {
    path: (entity) => `/subscriptions/${encodeURIComponent(entity.id)}`,
    state(body) {
      const data = objectAt(body, "");
      return {
        externalId: stringAt(data, "id", API_ANSWER),
        customerId: optionalString(data, "customer_id"),
        plan: firstPriceId(data.items, below(API_ANSWER, "items")),
        status: stringAt(data, "status", API_ANSWER),
      };
    },
  },
});
