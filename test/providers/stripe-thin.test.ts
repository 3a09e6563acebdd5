import Stripe from "stripe";
import { describe, expect, it } from "vitest";
import { stripe } from "@/lib/providers/stripe";
import { stripeSubscriptionEvent, stripeThinAccountEvent, stripeThinEvent } from "@/test/fixtures/stripe";
import { nowSeconds, TEST_SECRETS } from "@/test/sign";

const SECRET = TEST_SECRETS.stripe;
const headers = new Headers();
// 2024-09-26T17:46:22.134Z in microseconds.
const CREATED_MICROS = 1_727_372_782_134_000;

describe("stripe thin events (v2.core.event)", () => {
  it("[stripe] a meter error thin event names its related object and is versioned by the ISO created, in microseconds", () => {
    expect(stripe.describe(stripeThinEvent(), headers)).toStrictEqual({
      ok: true,
      event: {
        eventId: "evt_test_65RCjj4EqW1sabcjs2Z16RCMoNQdSQkOWvfL6L5uU2K40u",
        eventType: "v1.billing.meter.error_report_triggered",
        entity: { type: "billing.meter", id: "mtr_test_61RCjiqdTDC91zgip41IqPCzPnxqqSVc", version: CREATED_MICROS },
      },
    });
  });

  it("[stripe] a bracketed type (v2.core.account[requirements].updated) is kept verbatim", () => {
    const described = stripe.describe(stripeThinAccountEvent({ accountId: "acct_1QjvSdQ9RKHgCVdK" }), headers);
    expect(described.ok && described.event.eventType).toBe("v2.core.account[requirements].updated");
    expect(described.ok && described.event.entity).toStrictEqual({
      type: "v2.core.account",
      id: "acct_1QjvSdQ9RKHgCVdK",
      version: 1_739_266_212_456_000,
    });
  });

  it("[stripe] thin events a millisecond apart get versions a thousand apart", () => {
    const a = stripe.describe(stripeThinEvent({ created: "2024-09-26T17:46:22.134Z" }), headers);
    const b = stripe.describe(stripeThinEvent({ created: "2024-09-26T17:46:22.135Z" }), headers);
    expect(a.ok && b.ok && (b.event.entity?.version ?? 0) - (a.event.entity?.version ?? 0)).toBe(1000);
  });

  it("[stripe] a thin event without related_object is described without an entity", () => {
    const described = stripe.describe(stripeThinEvent({ relatedObject: null }), headers);
    expect(described).toStrictEqual({
      ok: true,
      event: {
        eventId: "evt_test_65RCjj4EqW1sabcjs2Z16RCMoNQdSQkOWvfL6L5uU2K40u",
        eventType: "v1.billing.meter.error_report_triggered",
        entity: undefined,
      },
    });
  });

  it("[stripe] a thin event whose created is a unix number is noted, not versioned as seconds", () => {
    const payload = { ...stripeThinEvent(), created: 1727372782 };
    const described = stripe.describe(payload, headers);
    expect(described.ok && described.event.entity?.version).toBeUndefined();
    expect(described.ok && described.event.entity?.versionNote).toMatch(/event\.created/);
  });

  it("[stripe] a classic event is versioned in seconds as before, whatever thin events do", () => {
    const described = stripe.describe(stripeSubscriptionEvent({ created: 1712917129 }), headers);
    expect(described.ok && described.event.entity?.version).toBe(1712917129);
  });

  it("[stripe] a thin event signed by our sign passes stripe.parseEventNotification and our verifier", () => {
    const now = nowSeconds();
    const body = JSON.stringify(stripeThinEvent());
    const signed = stripe.sign?.({ rawBody: body, secret: SECRET, now, eventId: "", eventType: "" }) ?? {};
    const client = new Stripe("sk_test_unused");
    const notification = client.parseEventNotification(body, signed["stripe-signature"] ?? "", SECRET);
    expect(notification.id).toBe("evt_test_65RCjj4EqW1sabcjs2Z16RCMoNQdSQkOWvfL6L5uU2K40u");
    expect(notification.type).toBe("v1.billing.meter.error_report_triggered");
    const verdict = stripe.verify({
      rawBody: Buffer.from(body),
      headers: new Headers(signed),
      secrets: [SECRET],
      toleranceSeconds: 300,
      now,
    });
    expect(verdict).toEqual({ ok: true });
  });
});
