/**
 * Whether arrays and objects nest deeper than `limit` (the root one is level 1), stopping at the first level past it.
 * On the parsed value: V8's JSON.parse does not recurse, so any nesting parses, and a walk of the value costs far less
 * than a scan of the text. A deeply nested body parses a few times slower than a flat one of its size; the receiver
 * parses only verified bodies within WEBHOOK_MAX_BYTES. A loop, not a recursion, whatever the limit.
 */
export function nestingExceeds(value: unknown, limit: number): boolean {
  const values: unknown[] = [value];
  const depths: number[] = [1];
  while (values.length > 0) {
    const v = values.pop();
    const depth = depths.pop()!;
    if (v === null || typeof v !== "object") continue;
    if (depth > limit) return true;
    if (Array.isArray(v)) {
      for (const child of v) {
        if (child === null || typeof child !== "object") continue;
        values.push(child);
        depths.push(depth + 1);
      }
    } else {
      for (const k in v) {
        const child = (v as Record<string, unknown>)[k];
        if (child === null || typeof child !== "object") continue;
        values.push(child);
        depths.push(depth + 1);
      }
    }
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
