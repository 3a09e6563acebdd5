import type { BadgeTone } from "@/components/ui/badge";
import type { DestinationState, ForwardStatus } from "@/db/schema/forward";

// Shared by server pages and client components (the event page's Forwards section too), so no "use client".

/** A forward's status in words: what happened, and a hint on hover. */
export const FORWARD_STATUS: Record<ForwardStatus, { label: string; tone: BadgeTone; hint: string }> = {
  pending: { label: "pending", tone: "info", hint: "Waits for the forwarder" },
  sending: { label: "sending", tone: "info", hint: "A request is in flight" },
  failed: { label: "failed", tone: "warning", hint: "Retried after a backoff" },
  sent: { label: "forwarded", tone: "success", hint: "The destination answered 2xx" },
  dead: { label: "dead", tone: "danger", hint: "Out of attempts: it waits for a person" },
  superseded: {
    label: "not forwarded: superseded",
    tone: "neutral",
    hint: "A newer state of its entity went instead (newest mode)",
  },
  stale: {
    label: "not forwarded: stale",
    tone: "neutral",
    hint: "Older than the state the destination has (newest mode)",
  },
  tie: {
    label: "not forwarded: tie",
    tone: "warning",
    hint: "The same version as the state the destination has, from another event (newest mode)",
  },
};

export const DESTINATION_STATE: Record<DestinationState, { tone: BadgeTone; meaning: string }> = {
  active: { tone: "success", meaning: "forwards as events settle" },
  paused: { tone: "warning", meaning: "keeps queueing forwards and sends none until it is resumed" },
  disabled: { tone: "danger", meaning: "gets nothing queued: events settled meanwhile are not forwarded to it" },
};

export const MODE_WORDS = {
  every: "every matching event",
  newest: "newest state per entity, in version order",
} as const;

export const FORMAT_WORDS = {
  standard: "Standard Webhooks envelope",
  provider: "provider's body, re-signed",
} as const;

export const ms = (n: number | null) => (n === null ? "—" : `${Math.round(n).toLocaleString("en")} ms`);
export const percent = (rate: number) => `${(rate * 100).toFixed(rate === 1 ? 0 : 1)} %`;
