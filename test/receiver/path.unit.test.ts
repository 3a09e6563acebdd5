import { describe, expect, it } from "vitest";
import { webhookSegment } from "@/lib/receiver/path";

// The plain spelling is answered without a URL parse; every other spelling goes through WHATWG URL. Both must agree.
const CASES: [string, string | undefined][] = [
  ["/api/webhooks/stripe", "stripe"],
  ["/api/webhooks/my_source-2", "my_source-2"],
  ["/api/webhooks/stripe/", "stripe"],
  ["/api/webhooks/stripe?attempt=2", "stripe"],
  ["/api/webhooks/stripe/?attempt=2", "stripe"],
  ["/api/webhooks/stripe#x", "stripe"],
  ["/api/webhooks/stripe//", "stripe"],
  ["/api/webhooks/x/../stripe", "stripe"],
  ["/api/webhooks/./stripe", "stripe"],
  ["/api/webhooks/%73tripe", "%73tripe"],
  ["/api/webhooks/stripe.json", "stripe.json"],
  ["/api/webhooks/stripe/extra", undefined],
  ["/api/webhooks/stripe/..", undefined],
  ["/api/webhooks/", undefined],
  ["/api/webhooks", undefined],
  ["/API/webhooks/stripe", undefined],
  ["/api/webhooks/stripe%2F", "stripe%2F"],
  ["http://ledger.test/api/webhooks/stripe", undefined],
  ["/x/api/webhooks/stripe", undefined],
];

describe("webhookSegment", () => {
  it("[receiver] gives the source segment of every spelling that names the webhook route, and nothing for any other path", () => {
    expect(CASES.map(([target]) => [target, webhookSegment(target)])).toEqual(CASES);
  });
});
