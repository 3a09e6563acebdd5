import { describe, expect, it } from "vitest";
import { namedPath, pathText } from "@/app/(console)/events/[source]/[eventId]/_components/error-path";
import { stripeSubscriptionEvent } from "@/test/fixtures/stripe";

const stripe = stripeSubscriptionEvent({ customerId: "cus_1" }) as unknown as Record<string, unknown>;

describe("the path an error names, found in the payload", () => {
  it("[event page] finds a path the payload has, and the deepest part of one it lacks", () => {
    expect(namedPath(["data.object is an invoice, not a subscription"], stripe)).toEqual({
      named: "data.object",
      found: ["data", "object"],
    });
    expect(namedPath(["permanent: payload has no data.object.plan_id"], stripe)).toEqual({
      named: "data.object.plan_id",
      found: ["data", "object"],
      missing: "plan_id",
    });
    const noPrice = namedPath(
      ["payload has no data.object.items.data[0].price.id (a subscription needs at least one item)"],
      stripeSubscriptionEvent({ priceId: "" }),
    );
    expect(noPrice).toEqual({
      named: "data.object.items.data[0].price.id",
      found: ["data", "object", "items", "data", 0, "price", "id"],
    });
    expect(pathText(noPrice!.found)).toBe("data.object.items.data[0].price.id");
  });

  it("[event page] reads event., order. and payload. as the payload's root", () => {
    expect(namedPath(["permanent: payload has no integer event.created"], stripe)).toEqual({
      named: "event.created",
      found: ["created"],
    });
    expect(namedPath(["payload has no payload.items[0]"], { items: [{ id: 1 }] })).toEqual({
      named: "payload.items[0]",
      found: ["items", 0],
    });
    expect(namedPath(["payload has no order.updated_at timestamp"], { id: 1 })).toEqual({
      named: "order.updated_at",
      found: [],
      missing: "updated_at",
    });
  });

  it("[event page] takes a single key only where the message names one, and skips messages with no path", () => {
    expect(namedPath(["payload has no occurred_at timestamp"], { data: {} })).toEqual({
      named: "occurred_at",
      found: [],
      missing: "occurred_at",
    });
    expect(namedPath(["downstream timeout", "connect ECONNREFUSED 127.0.0.1:5432"], stripe)).toBeUndefined();
    expect(namedPath(["GET https://api.stripe.com/v1/x answered 500"], stripe)).toBeUndefined();
    // The error says nothing of a path: the intake note does.
    expect(
      namedPath(["downstream timeout", 'version unusable: updated_at "soon" is not an ISO 8601 time with a zone'], {
        updated_at: "soon",
      }),
    ).toEqual({ named: "updated_at", found: ["updated_at"] });
    // A dotted path wins over a single word the message also names.
    expect(namedPath(["payload has no object at data.object"], { object: "event", data: {} })).toEqual({
      named: "data.object",
      found: ["data"],
      missing: "object",
    });
  });
});
