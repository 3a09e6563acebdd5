import type { BadgeTone } from "@/components/ui/badge";
import type { RefusalReason, SourceState } from "@/db/schema/sources";

// Shared by server pages and client components, so no "use client" here.

/** A refusal's reason in words, as the sources pages show it. */
export const REFUSAL_WORDS: Record<RefusalReason, string> = {
  bad_signature: "bad signature",
  stale_timestamp: "stale timestamp",
  not_json: "not JSON",
  too_large: "too large",
  paused: "refused while paused",
  bad_body: "body not fully received",
  no_identity: "no event id or type",
};

export const STATE_TONE: Record<SourceState, BadgeTone> = { active: "success", paused: "warning", disabled: "danger" };

/** What each state answers a delivery, for the badge's title and the confirmations. */
export const STATE_MEANING: Record<SourceState, string> = {
  active: "receives deliveries",
  paused: "answers 503, so the provider keeps each delivery and retries it later",
  disabled: "answers 404, as if the endpoint did not exist (providers may stop sending)",
};

function span(s: number): string {
  if (s < 90) return `${s} s`;
  if (s < 90 * 60) return `${Math.round(s / 60)} min`;
  if (s < 48 * 3600) return `${(s / 3600).toFixed(1)} h`;
  return `${Math.round(s / 86400)} d`;
}

/** "3 min ago", "in 24.0 h": the relative half of a time shown in UTC. */
export function ago(at: Date, now: Date): string {
  const s = Math.round((now.getTime() - at.getTime()) / 1000);
  return s < 0 ? `in ${span(-s)}` : `${span(s)} ago`;
}

/** The forms' 24 h UTC text for a moment, "2026-11-29 22:09" (a browser's date picker follows its locale). */
export function utcInputValue(date: Date): string {
  return date.toISOString().slice(0, 16).replace("T", " ");
}
