import type { AttemptOutcome, EventStatus } from "@/db/schema";
import type { Amount } from "./subject";

/**
 * The dispute bundle's first page, in words a person can hand over: who, what was charged or changed, when
 * (ISO 8601, UTC), how many times each event was delivered and how many times it was applied, and one
 * conclusion ("one payment of 20.00 USD, delivered twice, applied once"). The evidence follows it.
 */
export interface BundleSummary {
  who: {
    subject: string;
    /** Names the search directory holds for it ("Jenny Rosen"). */
    names: string[];
    /** Emails found in its events' payloads. */
    emails: string[];
  };
  /** The first and last event's time (the provider's, else the received time); null when there is none. */
  period: { first: string; last: string } | null;
  events: SummaryEvent[];
  /** Whether each raw body still matches the SHA-256 recorded when it arrived, in a sentence. */
  integrity: string;
  conclusion: string;
}

export interface SummaryEvent {
  source: string;
  eventId: string;
  eventType: string;
  /** "payment of 20.00 USD", "change to subscription sub_1 (status: past_due → active)", "invoice.created event". */
  what: string;
  /** ISO 8601: when the provider says it happened, else when it was received. */
  when: string;
  whenSource: "provider" | "received";
  deliveries: number;
  /** Attempts that applied its effects (outcome settled): once, for an event the ledger deduplicated. */
  applied: number;
  /** "one payment of 20.00 USD, delivered twice, applied once". */
  sentence: string;
}

/** What the summary reads of each bundled event (a BundleEvent, narrowed so the two files stay apart). */
export interface SummaryInput {
  source: string;
  eventId: string;
  eventType: string;
  receivedAt: string;
  providerTime: { at: string; field: string } | null;
  amount: Amount | null;
  status: EventStatus;
  test: boolean;
  entity: { type: string; id: string } | null;
  deliveryCount: number;
  applied: number;
  lastOutcome: AttemptOutcome | undefined;
  bodySha256: { matches: boolean | null };
  timeline: {
    entityType: string;
    entityId: string;
    outcome: string;
    changes: Record<string, { from: unknown; to: unknown }>;
  }[];
}

const NUMBERS = ["no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"];
const count = (n: number) => NUMBERS[n] ?? n.toLocaleString("en");
const times = (n: number) => (n === 1 ? "once" : n === 2 ? "twice" : `${n.toLocaleString("en")} times`);
const shown = (v: unknown) => (v === null || v === undefined ? "none" : typeof v === "string" ? v : JSON.stringify(v));

/** The noun and what follows it, so several alike can be counted: "two payments of 20.00 USD". */
function whatOf(e: SummaryInput): { noun: string; rest: string } {
  if (e.amount) return { noun: e.amount.field === "total_price" ? "order" : "payment", rest: `of ${e.amount.text}` };
  const moved = e.timeline.find((t) => t.outcome === "applied");
  if (moved) {
    const changes = Object.entries(moved.changes)
      .slice(0, 3)
      .map(([k, c]) => `${k}: ${shown(c.from)} → ${shown(c.to)}`);
    const detail = changes.length ? ` (${changes.join(", ")})` : "";
    return { noun: "change", rest: `to ${moved.entityType} ${moved.entityId}${detail}` };
  }
  if (e.entity) return { noun: `${e.eventType} event`, rest: `for ${e.entity.type} ${e.entity.id}` };
  return { noun: `${e.eventType} event`, rest: "" };
}

/** Why an event that was not applied was not, in words. */
function notApplied(e: SummaryInput): string {
  if (e.test) return "not applied: a test event";
  if (e.status === "claimed" || e.status === "processing") return "not applied yet: waiting for a worker";
  if (e.status === "failed") return "not applied yet: its last attempt failed and it will be retried";
  if (e.status === "dead") return "not applied: it failed and waits for a person";
  if (e.lastOutcome === "stale") return "not applied: older than the state already applied";
  if (e.lastOutcome === "tie") return "not applied: a tie with the state applied, left to a person";
  if (e.lastOutcome === "ignored") return "not applied: nothing to apply for this type";
  return "not applied";
}

const tail = (e: SummaryInput) =>
  `${e.deliveryCount > 0 ? `delivered ${times(e.deliveryCount)}` : "deliveries not recorded"}, ` +
  (e.applied > 0 ? `applied ${times(e.applied)}` : notApplied(e));

const noun = (word: string, n: number) => (n === 1 ? word : `${word}s`);

function integrityOf(events: readonly SummaryInput[], idOf: (e: SummaryInput) => string): string {
  const altered = events.filter((e) => e.bodySha256.matches === false);
  const unhashed = events.filter((e) => e.bodySha256.matches === null).length;
  if (altered.length > 0)
    return `The raw body of ${altered.map(idOf).join(", ")} does NOT match the SHA-256 recorded when it arrived.`;
  const checked = events.length - unhashed;
  const head =
    checked > 0 ? `Each raw body matches the SHA-256 recorded when it arrived (${count(checked)} checked).` : "";
  const old =
    unhashed > 0 ? ` ${count(unhashed)} older ${noun("event", unhashed)} had no hash recorded to compare.` : "";
  return (head + old).trim() || "No event to check.";
}

export function summarizeBundle(
  subject: string,
  who: { names: string[]; emails: string[] },
  events: readonly SummaryInput[],
  complete: boolean,
): BundleSummary {
  const lines: SummaryEvent[] = events.map((e) => {
    const w = whatOf(e);
    const what = w.rest ? `${w.noun} ${w.rest}` : w.noun;
    return {
      source: e.source,
      eventId: e.eventId,
      eventType: e.eventType,
      what,
      when: e.providerTime?.at ?? e.receivedAt,
      whenSource: e.providerTime ? "provider" : "received",
      deliveries: e.deliveryCount,
      applied: e.applied,
      sentence: `one ${what}, ${tail(e)}`,
    };
  });
  // Alike events counted together, in the bundle's order: "two payments of 20.00 USD, each delivered once, …".
  const groups = new Map<string, { noun: string; rest: string; tail: string; n: number }>();
  for (const e of events) {
    const w = whatOf(e);
    const key = JSON.stringify([w.noun, w.rest, tail(e)]);
    const g = groups.get(key);
    if (g) g.n++;
    else groups.set(key, { ...w, tail: tail(e), n: 1 });
  }
  const parts = [...groups.values()].map(
    (g) => `${count(g.n)} ${noun(g.noun, g.n)}${g.rest ? ` ${g.rest}` : ""}, ${g.n > 1 ? "each " : ""}${g.tail}`,
  );
  const twice = lines.filter((l) => l.applied > 1);
  const verdict =
    lines.length === 0
      ? "The ledger holds no event for it."
      : twice.length === 0
        ? "No event was applied more than once."
        : `${twice.map((l) => `${l.source}/${l.eventId}`).join(", ")} ${twice.length === 1 ? "was" : "were"} applied more than once.`;
  const whens = lines.map((l) => l.when).sort();
  const list = parts.length ? `${parts.join("; ")}. ` : "";
  return {
    who: { subject, ...who },
    period: whens.length ? { first: whens[0]!, last: whens[whens.length - 1]! } : null,
    events: lines,
    integrity: integrityOf(events, (e) => `${e.source}/${e.eventId}`),
    conclusion:
      `For ${subject}: ${list}${verdict}` +
      (complete ? "" : " This bundle does not hold every event for it: see its limits."),
  };
}
