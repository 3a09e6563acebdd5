// Shared by the customer view and its printable bundle (server components), so no "use client" here.
import type { EventOutcome, EventStatusInput } from "@/components/event-status";
import type { BadgeTone } from "@/components/ui/badge";
import { utc } from "@/components/utc";
import type { AttemptOutcome, EventResolution, EventStatus } from "@/db/schema";
import type { SubjectTransition, SubjectView } from "@/lib/console/subject";
import { SubjectInput } from "@/lib/console/subject";
import { segmentValue } from "@/lib/ledger/params";
import { plural } from "@/lib/format/words";
import { tieResolvedWords } from "@/components/tie-resolution";

export const subjectHref = (subject: string) => `/subjects/${encodeURIComponent(subject)}`;

/** The subject a /subjects/{id} segment names, or why no event can mention it. */
export function subjectFromParam(raw: string): { ok: true; subject: string } | { ok: false; error: string } {
  const parsed = SubjectInput.safeParse({ subject: segmentValue(raw) });
  if (parsed.success) return { ok: true, subject: parsed.data.subject };
  return { ok: false, error: parsed.error.issues.map((i) => i.message).join("; ") };
}

const seconds = (ms: number) => `${(ms / 1000).toLocaleString("en", { maximumFractionDigits: 1 })} s`;

/**
 * What the page can say about a subject the search index does not name, from the read of raw bodies (null when
 * the index named events). Never "no event mentions it" unless every stored event was read.
 */
export function scanWords(v: Pick<SubjectView, "scan" | "found" | "events">): string | null {
  const s = v.scan;
  if (!s) return null;
  const read = `${plural(s.read, "stored event")} read in ${seconds(s.ms)}`;
  if (v.events.length > 0)
    return (
      `Not in the search index: ${plural(v.found, "event")} ${v.found === 1 ? "mentions" : "mention"} it in ` +
      `${v.found === 1 ? "its" : "their"} raw body or headers (${read}` +
      `${s.complete ? ")" : "; the read stopped there, so older events may mention it too)"}.`
    );
  return s.complete
    ? `No event in the ledger mentions this id or email: not in the search index, nor in any raw body or headers (${read}).`
    : `Not in the search index, nor in the raw bodies of the newest ${plural(s.read, "event")} (the read stops ` +
        `after ${seconds(s.ms)}): older events may still mention it. Erasure reads every one.`;
}

type TransitionLike = Pick<SubjectTransition, "outcome" | "resolution">;

/** How a tie was ordered, in words; null when it was no tie. */
export function resolutionWords(t: Pick<SubjectTransition, "resolution">): string | null {
  return t.resolution ? tieResolvedWords(t.resolution) : null;
}

/** What one timeline row decided for its entity: a badge's words and tone. */
export function transitionWords(t: TransitionLike): { label: string; tone: BadgeTone } {
  if (t.outcome === "applied") return { label: "applied", tone: "success" };
  if (t.outcome === "tie") return { label: "tie: undecided", tone: "danger" };
  return { label: "stale", tone: "warning" };
}

/**
 * An event's status badge input: the outcome settling recorded (webhook_event.outcome), else, on rows from
 * before it was kept, the last attempt's, else what its last timeline row decided.
 */
export function badgeInput(e: {
  status: EventStatus;
  eventOutcome?: AttemptOutcome | null;
  resolution?: EventResolution | null;
  lastOutcome?: AttemptOutcome | null;
  transitions: readonly TransitionLike[];
}): EventStatusInput {
  const last = e.transitions.at(-1);
  const fromTimeline: EventOutcome | undefined =
    last?.outcome === "stale" ? "stale" : last?.outcome === "tie" ? "tie" : undefined;
  return {
    status: e.status,
    outcome: e.eventOutcome ?? e.lastOutcome ?? fromTimeline ?? null,
    resolution: e.resolution ?? null,
  };
}

/** A business row's value as text: payload-derived, so only ever rendered as text. */
export const show = (v: unknown): string =>
  v === null || v === undefined
    ? "—"
    : v instanceof Date
      ? utc(v, { ms: true })
      : typeof v === "object"
        ? JSON.stringify(v)
        : String(v);
