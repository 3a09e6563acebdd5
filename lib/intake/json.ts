/**
 * Whether arrays and objects in JSON text nest deeper than `limit`, stopping at the first level past it.
 * A scan of the text rather than of the parsed value: it runs before anything else looks inside the payload.
 */
export function jsonDepthExceeds(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 /* { */ || c === 91 /* [ */) {
      if (++depth > limit) return true;
    } else if (c === 125 /* } */ || c === 93 /* ] */) depth--;
  }
  return false;
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Text PostgreSQL can store: no U+0000 (text refuses it) and no lone surrogate (not valid UTF-8). */
export function pgText(value: string): string {
  if (!value.includes("\u0000") && value.isWellFormed()) return value;
  return value.replaceAll("\u0000", "\uFFFD").replace(LONE_SURROGATE, "\uFFFD");
}

export const isPgStorable = (value: string): boolean => !value.includes("\u0000") && value.isWellFormed();

// What jsonb refuses in text that JSON.parse accepts: a \u0000 escape, an escaped lone surrogate, and
// numbers beyond numeric's range (1e131072 and up). Cheap to look for; rare to find.
const JSONB_HAZARD = /\\u0000|\\u[dD][89a-fA-F]|[eE][+-]?\d{5,}/;

/**
 * The text the jsonb copy is made from: the raw body itself, unless jsonb would refuse it. Then a
 * re-serialisation with those values swapped (U+FFFD for the characters, null for a number no
 * double can hold). The raw body always keeps the exact bytes.
 */
export function jsonbText(rawBody: string, parse: () => unknown): string {
  if (!JSONB_HAZARD.test(rawBody)) return rawBody;
  const parsed = parse();
  const clean = (value: unknown): unknown => {
    if (typeof value === "string") return pgText(value);
    if (typeof value === "number") return Number.isFinite(value) ? value : null;
    if (Array.isArray(value)) return value.map(clean);
    if (value !== null && typeof value === "object") {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) out[pgText(k)] = clean(v);
      return out;
    }
    return value;
  };
  return JSON.stringify(clean(parsed));
}
