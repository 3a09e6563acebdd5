// Shared by the customer view and its printable bundle (server components), so no "use client" here.
import { utc } from "@/components/utc";
import type { AttemptOutcome, EventStatus } from "@/db/schema";
import type { SubjectTransition } from "@/lib/ledger/subject";
import { SubjectInput } from "@/lib/ledger/subject";
import { segmentValue } from "@/lib/ledger/params";

export const subjectHref = (subject: string) => `/subjects/${encodeURIComponent(subject)}`;

/** The subject a /subjects/{id} segment names, or why no event can mention it. */
export function subjectFromParam(raw: string): { ok: true; subject: string } | { ok: false; error: string } {
  const parsed = SubjectInput.safeParse({ subject: segmentValue(raw) });
  if (parsed.success) return { ok: true, subject: parsed.data.subject };
  return { ok: false, error: parsed.error.issues.map((i) => i.message).join("; ") };
}

/** How a tie was ordered, in words. */
type TransitionLike = Pick<SubjectTransition, "outcome" | "resolution" | "priorVersion" | "note">;

export function resolutionWords(t: Pick<SubjectTransition, "resolution">): string {
  if (t.resolution === "chain") return " (tie ordered by the events' own evidence)";
  if (t.resolution === "provider-api") return " (tie resolved from the provider's API)";
  if (t.resolution === "by-hand") return " (tie decided by a person)";
  return "";
}

/** What a timeline row says, in the words support uses: "stale: older than v2000". */
export function transitionWords(t: TransitionLike): { label: string; tone: string } {
  if (t.outcome === "applied") return { label: `applied${resolutionWords(t)}`, tone: "applied" };
  if (t.outcome === "tie") return { label: "tie: not decided", tone: "tie" };
  return {
    label: t.priorVersion === null ? "stale" : `stale: older than v${t.priorVersion}`,
    tone: "stale",
  };
}

/** How one event ended (or where it is): a badge's words and tone, and the error or note behind it. */
export function outcomeOf(e: {
  status: EventStatus;
  lastError: string | null;
  attempts: number;
  transitions: readonly TransitionLike[];
  lastOutcome: AttemptOutcome | undefined;
}): { label: string; tone: string; detail: string | null } {
  if (e.status === "dead") return { label: "dead: waiting for a person", tone: "dead", detail: e.lastError };
  if (e.status === "failed")
    return { label: `failed: retrying (attempt ${e.attempts})`, tone: "failed", detail: e.lastError };
  if (e.status === "claimed") return { label: "waiting for the worker", tone: "claimed", detail: null };
  if (e.status === "processing") return { label: "processing now", tone: "processing", detail: null };
  const last = e.transitions.at(-1);
  // A timeline note ("delta", why it is stale) is shown with the entity it moved, not as an error.
  if (last) return { ...transitionWords(last), detail: null };
  if (e.lastOutcome === "ignored") return { label: "ignored: no handler for this type", tone: "", detail: null };
  return { label: "settled", tone: "settled", detail: null };
}

/** "3 days ago", for a title: the date itself is always shown in UTC. */
export function ago(iso: string, now = Date.now()): string {
  const s = Math.round((now - Date.parse(iso)) / 1000);
  const steps: [number, string][] = [
    [31_536_000, "year"],
    [86_400, "day"],
    [3_600, "hour"],
    [60, "minute"],
  ];
  for (const [size, unit] of steps)
    if (Math.abs(s) >= size) {
      const n = Math.floor(Math.abs(s) / size);
      return s >= 0 ? `${n} ${unit}${n === 1 ? "" : "s"} ago` : `in ${n} ${unit}${n === 1 ? "" : "s"}`;
    }
  return "just now";
}

export const when = (iso: string | null | undefined) => utc(iso ?? undefined, { ms: true });

/** A business row's value as text: payload-derived, so only ever rendered as text. */
export const show = (v: unknown): string =>
  v === null || v === undefined
    ? "—"
    : v instanceof Date
      ? utc(v, { ms: true })
      : typeof v === "object"
        ? JSON.stringify(v)
        : String(v);

export const plural = (n: number, word: string, many = `${word}s`) =>
  `${n.toLocaleString("en")} ${n === 1 ? word : many}`;
