import { isPrototypeKey } from "@/lib/providers/options";
import type { ProviderKind } from "@/lib/providers/types";
import { TEST_MARKER, testMarker } from "@/lib/providers/test-marker";
import { githubIssuesOpened, githubPullRequestEvent } from "@/lib/samples/github";
import { paddleSubscriptionEvent } from "@/lib/samples/paddle";
import { shopifyOrder } from "@/lib/samples/shopify";
import { slackEventCallback } from "@/lib/samples/slack";
import { standardEvent } from "@/lib/samples/standard";
import { stripeInvoicePaidEvent, stripeSubscriptionEvent, stripeThinEvent } from "@/lib/samples/stripe";
import type { ResolvedSource } from "./types";

/**
 * The event types a test event can be sent as, per provider kind, as the ledger will show them: each has a
 * realistic sample in lib/samples. The first is the default, a type no built-in handler applies.
 */
export const TEST_EVENT_TYPES = {
  stripe: [
    "v1.billing.meter.error_report_triggered",
    "invoice.paid",
    "customer.subscription.created",
    "customer.subscription.updated",
    "customer.subscription.deleted",
  ],
  github: ["issues.opened", "pull_request.opened", "pull_request.synchronize", "pull_request.closed"],
  shopify: ["orders/paid", "orders/create", "orders/updated", "orders/cancelled"],
  paddle: ["subscription.activated", "subscription.created", "subscription.updated", "subscription.canceled"],
  slack: ["message", "reaction_added", "app_mention"],
  standard: ["ledger.test", "subscription.created", "subscription.updated", "subscription.canceled"],
  generic: ["ledger.test"],
} as const satisfies Record<ProviderKind, readonly [string, ...string[]]>;

export const testEventTypes = (kind: ProviderKind): readonly string[] => TEST_EVENT_TYPES[kind];

type Fields = Record<string, unknown>;
const fields = (): Fields => Object.create(null) as Fields;

/**
 * Sets a dot path in the sample's fields. Every object on the way has no prototype and a segment that
 * would name one is skipped, so a path saved before such paths were refused cannot write outside the sample.
 */
function setPath(target: Fields, path: string, value: unknown) {
  const keys = path.split(".");
  if (keys.some(isPrototypeKey)) return;
  let at = target;
  for (const key of keys.slice(0, -1)) {
    const next = Object.hasOwn(at, key) ? at[key] : undefined;
    at = at[key] = typeof next === "object" && next !== null && !Array.isArray(next) ? (next as Fields) : fields();
  }
  at[keys[keys.length - 1]!] = value;
}

const SLACK_EVENTS: Record<string, (user: string, channel: string, ts: string) => Record<string, unknown>> = {
  reaction_added: (user, channel, ts) => ({
    type: "reaction_added",
    user,
    reaction: "white_check_mark",
    item: { type: "message", channel, ts },
    item_user: user,
    event_ts: ts,
  }),
  app_mention: (user, channel, ts) => ({
    type: "app_mention",
    user,
    text: "<@U0LAN0Z89> is the refund for order #1042 through?",
    ts,
    channel,
    event_ts: ts,
  }),
};

/** The sample's body without the marker; `type` is one of TEST_EVENT_TYPES[source.provider]. */
function sampleBody(source: ResolvedSource, type: string, eventId: string, now: Date): object {
  const iso = now.toISOString();
  const seconds = Math.floor(now.getTime() / 1000);
  switch (source.provider) {
    case "stripe":
      if (type === "invoice.paid") return stripeInvoicePaidEvent({ eventId, created: seconds });
      if (type.startsWith("customer.subscription."))
        return stripeSubscriptionEvent({
          eventId,
          created: seconds,
          type: type as "customer.subscription.updated",
          status: type === "customer.subscription.deleted" ? "canceled" : "active",
        });
      return stripeThinEvent({ eventId, type, created: iso });
    case "github": {
      const action = type.split(".")[1];
      if (type.startsWith("pull_request."))
        return githubPullRequestEvent({ action: action as "opened", merged: action === "closed", updatedAt: iso });
      return githubIssuesOpened({ createdAt: iso });
    }
    case "shopify":
      return shopifyOrder({
        updatedAt: iso,
        financialStatus: type === "orders/paid" ? "paid" : undefined,
      });
    case "paddle":
      return paddleSubscriptionEvent({
        eventId,
        eventType: type,
        occurredAt: iso,
        status: type === "subscription.canceled" ? "canceled" : "active",
      });
    case "slack": {
      const ts = `${seconds}.000100`;
      const event = SLACK_EVENTS[type]?.("U061F7AUR", "C2147483705", ts);
      return slackEventCallback({ eventId, eventTime: seconds, ...(event ? { event } : {}) });
    }
    case "standard":
      return standardEvent({ type, timestamp: iso });
    case "generic": {
      const o = source.options as {
        eventId?: { path?: string; hashOf?: string[] };
        eventType?: { path?: string };
        versionPath?: string;
        entity?: { idPath?: string; typePath?: string };
      };
      const body = Object.assign(fields(), { test: true, sent_by: "Webhook Ledger" });
      if (o.eventId?.path) setPath(body, o.eventId.path, eventId);
      for (const path of o.eventId?.hashOf ?? []) setPath(body, path, `${eventId}`);
      if (o.eventType?.path) setPath(body, o.eventType.path, type);
      if (o.versionPath) setPath(body, o.versionPath, iso);
      if (o.entity?.idPath) setPath(body, o.entity.idPath, "test_object");
      if (o.entity?.typePath) setPath(body, o.entity.typePath, "test");
      return body;
    }
  }
}

/**
 * A realistic sample of the source's kind and the chosen type, marked as a test at the top of its body (the
 * receiver reads the marker from the signed body: lib/providers/test-marker.ts), so the ledger stores, dedups and
 * shows it like any other event and the worker never applies it. The marker's id makes every body unique:
 * where the body's hash is a dedup key (GitHub, Shopify), a second test is not a duplicate of the first.
 */
export function testEventFor(
  source: ResolvedSource,
  eventId: string,
  now: Date,
  type: string = TEST_EVENT_TYPES[source.provider][0],
): { body: string; type: string } {
  const sample = sampleBody(source, type, eventId, now);
  // Spread into a null-prototype object: a generic sample is one, and its keys are copied as they are.
  const body = Object.assign(fields(), sample, { [TEST_MARKER]: testMarker(eventId) });
  return { body: JSON.stringify(body), type };
}
