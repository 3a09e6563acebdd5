import type { EventOutcome, EventResolution } from "@/components/event-status";
import type { LedgerEvent } from "@/lib/console/event-detail";
import { EVENT_TIME_FIELDS } from "@/lib/providers/time";
import type { ProviderKind } from "@/lib/providers/types";

/**
 * A provider's entity version as a moment: unix seconds (Stripe's created, Slack's event_time), milliseconds,
 * or microseconds (ISO times, lib/providers/time.ts). Below 1e9 (2001) it is a counter, not a time.
 */
export function versionInstant(version: number): { at: Date; ms: boolean } | undefined {
  if (!Number.isFinite(version) || version < 1e9) return undefined;
  if (version < 1e11) return { at: new Date(version * 1000), ms: false };
  return { at: new Date(version < 1e14 ? version : version / 1000), ms: true };
}

// A source of no known provider kind: the first of these its payload has.
const ANY_TIME_FIELDS = ["created", "occurred_at", "timestamp", "event_time", "created_at", "updated_at"];

/** When the provider says the event happened: a payload field in unix seconds or ISO 8601, and its name. */
export function providerTime(
  kind: ProviderKind | undefined,
  payload: unknown,
): { value: number | string; field: string } | undefined {
  if (payload === null || typeof payload !== "object" || Array.isArray(payload)) return undefined;
  const known = kind ? EVENT_TIME_FIELDS[kind] : undefined;
  for (const field of known ? [known] : kind === "github" ? [] : ANY_TIME_FIELDS) {
    const value = (payload as Record<string, unknown>)[field];
    if (typeof value === "number" && Number.isSafeInteger(value) && value >= 1e9) return { value, field };
    if (typeof value === "string" && /^\d{4}-\d{2}-\d{2}T/.test(value) && !Number.isNaN(Date.parse(value)))
      return { value, field };
  }
  return undefined;
}

/**
 * The worker's last word on the event and a person's decision, read defensively: the columns
 * (webhook_event.outcome, resolution, …) are null on rows from before they were recorded, and then the
 * last attempt says what happened.
 */
export function outcomeOf(
  event: LedgerEvent,
  lastAttempt: { outcome: EventOutcome } | undefined,
): {
  outcome: EventOutcome | null;
  resolution: EventResolution | null;
  note: string | null;
  by: string | null;
  at: Date | null;
} {
  const e = event as LedgerEvent &
    Partial<{
      outcome: EventOutcome | null;
      resolution: EventResolution | null;
      resolutionNote: string | null;
      resolvedBy: string | null;
      resolvedAt: Date | null;
    }>;
  return {
    outcome: e.outcome ?? lastAttempt?.outcome ?? null,
    resolution: e.resolution ?? null,
    note: e.resolutionNote ?? null,
    by: e.resolvedBy ?? null,
    at: e.resolvedAt ?? null,
  };
}

/**
 * Each attempt's place in its retry budget. A requeue (or Process now on a dead event) restarts the budget at
 * `attemptsBase`; earlier budgets are told apart by the requeues that started them.
 */
export function budgetPosition(
  attempts: readonly { number: number; trigger: string }[],
  attemptsBase: number,
): Map<number, number> {
  const starts = new Set(attempts.filter((a) => a.trigger === "requeue").map((a) => a.number));
  if (attemptsBase > 0) starts.add(attemptsBase + 1);
  const sorted = [...starts].sort((a, b) => a - b);
  const out = new Map<number, number>();
  for (const a of attempts) {
    const start = sorted.filter((s) => s <= a.number).pop() ?? 1;
    out.set(a.number, a.number - start + 1);
  }
  return out;
}

/** A header the provider signs with (or that carries the signed timestamp): kept in the cURL, marked in the list. */
export function isSignatureHeader(name: string, options: unknown): boolean {
  const configured = (options as { signatureHeader?: unknown } | null)?.signatureHeader;
  if (typeof configured === "string" && configured.toLowerCase() === name.toLowerCase()) return true;
  return /signature|hmac/i.test(name);
}

/** "permanent: payload has no …" → the reason and whether it was permanent (the worker's prefix). */
export function splitError(error: string | null): { reason: string | null; permanent: boolean } {
  if (!error) return { reason: null, permanent: false };
  return error.startsWith("permanent: ")
    ? { reason: error.slice("permanent: ".length), permanent: true }
    : { reason: error, permanent: false };
}
