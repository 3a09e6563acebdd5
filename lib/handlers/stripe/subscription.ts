import { firstPriceId, integerAt, objectAt, optionalString, stringAt } from "../read";
import { writeSubscription, type SubscriptionState } from "../subscription-store";
import { defineSnapshotHandler, HandlerInputError } from "../types";

/**
 * customer.subscription.* → subscription. The version is event.created (seconds): data.object.created
 * is the subscription's birth and never changes across updates. A delete keeps the row as canceled at
 * its version, so a late, older update cannot bring it back.
 */
export const stripeSubscription = defineSnapshotHandler<SubscriptionState>({
  source: "stripe",
  types: ["customer.subscription.created", "customer.subscription.updated", "customer.subscription.deleted"],
  read({ payload, eventType }) {
    const object = objectAt(payload, "data.object");
    if (object.object !== undefined && object.object !== "subscription")
      throw new HandlerInputError(`data.object is a ${String(object.object)}, not a subscription`);
    const externalId = stringAt(object, "id", "data.object");
    const version = integerAt(payload as Record<string, unknown>, "created", "event");
    const deleted = eventType === "customer.subscription.deleted";
    const status = deleted ? "canceled" : stringAt(object, "status", "data.object");
    const customer = object.customer;
    const state: SubscriptionState = {
      externalId,
      customerId:
        typeof customer === "string"
          ? customer
          : typeof customer === "object" && customer
            ? optionalString(customer as Record<string, unknown>, "id")
            : null,
      plan: firstPriceId(object.items, "data.object.items.data"),
      status,
    };
    return { entity: { type: "subscription", id: externalId, version }, state };
  },
  write: (tx, state, { entity, event }) => writeSubscription(tx, "stripe", state, entity.version, event.eventId),
});
