import { describe, expect, it } from "vitest";
import { errorPath, pathText } from "@/app/(console)/events/[source]/[eventId]/_components/error-path";
import { shopifyOrder } from "@/lib/handlers/shopify/order";
import { stripeSubscription } from "@/lib/handlers/stripe/subscription";
import { HandlerInputError } from "@/lib/handlers/types";
import { paddleSubscription } from "@/lib/handlers/paddle/subscription";
import { stripeSubscriptionEvent } from "@/test/fixtures/stripe";

const stripe = stripeSubscriptionEvent({ customerId: "cus_1" }) as unknown as Record<string, unknown>;

/** What a handler's read throws for this payload. */
function thrown(read: () => unknown): HandlerInputError {
  try {
    read();
  } catch (err) {
    if (err instanceof HandlerInputError) return err;
    throw err;
  }
  throw new Error("the handler read the payload without an error");
}

describe("the path a handler's error records", () => {
  it("[handlers] each input error carries the payload path and what is wrong there, beside its message", () => {
    const ev = (payload: unknown, eventType = "customer.subscription.updated") => ({
      source: "stripe",
      eventId: "evt_1",
      eventType,
      payload,
    });
    const noPrice = thrown(() => stripeSubscription.read(ev(stripeSubscriptionEvent({ priceId: "" }))));
    expect(noPrice.detail).toEqual({ path: ["data", "object", "items", "data", 0, "price", "id"], problem: "missing" });
    const invoice = { ...stripe, data: { object: { object: "invoice", id: "in_1" } } };
    expect(thrown(() => stripeSubscription.read(ev(invoice))).detail).toEqual({
      path: ["data", "object", "object"],
      problem: "wrong-object",
    });
    expect(thrown(() => stripeSubscription.read(ev({ ...stripe, created: "soon" }))).detail).toEqual({
      path: ["created"],
      problem: "not-an-integer",
    });
    expect(thrown(() => stripeSubscription.read(ev({ id: "evt_1" }))).detail).toEqual({
      path: ["data", "object"],
      problem: "missing",
    });
    const order = { id: 1, updated_at: "2026-12-01T10:00:00Z", cancelled_at: "later" };
    expect(thrown(() => shopifyOrder.read({ ...ev(order), source: "shopify" })).detail).toEqual({
      path: ["cancelled_at"],
      problem: "not-a-date",
    });
    expect(
      thrown(() => paddleSubscription.read({ ...ev({ data: { id: "sub_1" } }), source: "paddle" })).detail,
    ).toEqual({ path: ["occurred_at"], problem: "missing" });
  });

  it("[handlers] the provider API's answer to a tie is not the payload: its errors record no path", () => {
    const err = thrown(() =>
      stripeSubscription.current!.state(
        { object: "subscription", id: "sub_1" },
        { type: "subscription", id: "sub_1", version: 1 },
      ),
    );
    expect(err.detail.path).toBeNull();
  });
});

describe("the path the event page opens", () => {
  it("[event page] finds a recorded path the payload has, and the deepest part of one it lacks", () => {
    expect(errorPath({ detail: { path: ["data", "object"], problem: "wrong-object" } }, stripe)).toEqual({
      named: "data.object",
      found: ["data", "object"],
      problem: "wrong-object",
    });
    expect(errorPath({ detail: { path: ["data", "object", "plan_id"], problem: "missing" } }, stripe)).toEqual({
      named: "data.object.plan_id",
      found: ["data", "object"],
      missing: "plan_id",
      problem: "missing",
    });
    const noPrice = errorPath(
      { detail: { path: ["data", "object", "items", "data", 0, "price", "id"], problem: "missing" } },
      stripeSubscriptionEvent({ priceId: "" }),
    );
    expect(noPrice?.found).toEqual(["data", "object", "items", "data", 0, "price", "id"]);
    expect(pathText(noPrice!.found)).toBe("data.object.items.data[0].price.id");
  });

  it("[event page] an intake note opens the provider's version field; no recorded path and no note: nothing", () => {
    expect(
      errorPath(
        { intakeNote: 'version unusable: updated_at "soon" is …', provider: "shopify" },
        { updated_at: "soon" },
      ),
    ).toEqual({ named: "updated_at", found: ["updated_at"], problem: "version-unusable" });
    expect(
      errorPath(
        { intakeNote: "version unusable: …", provider: "generic", options: { versionPath: "meta.at" } },
        { meta: {} },
      ),
    ).toEqual({ named: "meta.at", found: ["meta"], missing: "at", problem: "version-unusable" });
    // A transient error records no path, and its words are never read for one.
    expect(errorPath({ detail: null, provider: "stripe" }, stripe)).toBeUndefined();
    expect(errorPath({ intakeNote: "version unusable: …", provider: "github" }, stripe)).toBeUndefined();
  });
});
