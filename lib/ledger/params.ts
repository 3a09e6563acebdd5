/**
 * Text from a URL (a path segment, a query value) checked before it reaches a query: PostgreSQL's
 * text refuses U+0000 and a lone surrogate is not UTF-8, so either would surface as a 500 from the
 * database rather than as the caller's mistake. Shared by the console's pages and routes, the proxy
 * and the webhook adapter.
 */

import { SOURCE_SLUG } from "@/db/schema/sources";

/** The longest event id the receiver stores (lib/intake/describe.ts). */
export const MAX_KEY_LENGTH = 255;

const NUL = "\u0000";

/** Why `value` cannot be stored or looked up as text, or undefined when it can. */
export function textProblem(value: string, max: number = MAX_KEY_LENGTH): string | undefined {
  if (value.length > max) return `is longer than ${max} characters`;
  if (value.includes(NUL)) return "contains U+0000 (NUL)";
  if (!value.isWellFormed()) return "is not valid UTF-8";
  return undefined;
}

export type Checked<T> = { ok: true; value: T } | { ok: false; status: 400 | 404; error: string };

/** One percent-decoding, refusing what decodeURIComponent refuses (%ff, a lone %) and NUL. */
export function decodeSegment(raw: string, what: string, max: number = MAX_KEY_LENGTH): Checked<string> {
  let value: string;
  try {
    value = decodeURIComponent(raw);
  } catch {
    return { ok: false, status: 400, error: `${what} is not valid percent-encoded UTF-8` };
  }
  const problem = textProblem(value, max);
  return problem ? { ok: false, status: 400, error: `${what} ${problem}` } : { ok: true, value };
}

/**
 * A dynamic segment as the id it names. Next has handed page params over both encoded and decoded
 * across versions (vercel/next.js#64952): one more decoding when it still holds an escape, kept as
 * given when that decoding fails (a literal "%" in an id).
 */
export function segmentValue(value: string): string {
  if (!value.includes("%")) return value;
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** Whether a URL segment can be a source's slug at all (anything else is a 404 before any query). */
export const isSourceSlug = (value: string): boolean => SOURCE_SLUG.test(value);

/** An event's key from /events/{source}/{eventId}: unknown source → 404, an id no row can have → 400. */
export function eventKeyFromParams(p: {
  source: string;
  eventId: string;
}): Checked<{ source: string; eventId: string }> {
  const source = segmentValue(p.source);
  if (!SOURCE_SLUG.test(source)) return { ok: false, status: 404, error: `unknown source "${printable(source)}"` };
  const eventId = segmentValue(p.eventId);
  if (eventId.length === 0) return { ok: false, status: 400, error: "the event id is empty" };
  const problem = textProblem(eventId);
  if (problem) return { ok: false, status: 400, error: `the event id ${problem}` };
  return { ok: true, value: { source, eventId } };
}

/** Attacker-chosen text echoed into a message: control and invisible formatting characters escaped, length capped. */
export function printable(value: string, max = 64): string {
  const cut = value.length > max ? `${value.slice(0, max)}…` : value;
  return cut.replace(
    /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]|[\ud800-\udfff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/**
 * Why a URL's path or query cannot be meant for this app, or undefined: an escape that is not UTF-8
 * (%ff, a lone %) or an encoded NUL. The raw, still-encoded form, as the proxy sees it.
 */
export function urlProblem(pathname: string, search: string): string | undefined {
  for (const seg of pathname.split("/")) {
    if (!seg.includes("%")) continue;
    const d = decodeSegment(seg, "a path segment", Number.MAX_SAFE_INTEGER);
    if (!d.ok) return d.error;
  }
  const query = search.startsWith("?") ? search.slice(1) : search;
  if (!query.includes("%")) return undefined;
  for (const pair of query.split("&")) {
    for (const part of pair.split("=")) {
      const d = decodeSegment(part.replaceAll("+", " "), "the query string", Number.MAX_SAFE_INTEGER);
      if (!d.ok) return d.error;
    }
  }
  return undefined;
}
