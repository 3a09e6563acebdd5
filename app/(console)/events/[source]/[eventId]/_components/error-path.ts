/**
 * The payload path an error or intake note names, found in the payload. Handlers phrase their errors as
 * "payload has no data.object.id", "payload has no integer event.created", "data.object is a invoice, not a
 * subscription", "payload has no order.updated_at timestamp"; intake notes as "version unusable: updated_at …".
 * `event.`, `order.` and `payload.` stand for the payload's root.
 */
export interface NamedPath {
  /** The path as the message wrote it (data.object.id). */
  named: string;
  /** The deepest part of it the payload has: the node to open and highlight ([] is the root). */
  found: (string | number)[];
  /** The first segment the payload lacks, when the message names something missing. */
  missing?: string | number;
}

const TOKEN = /[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*|\[\d+\])*/g;
const ROOT_ALIASES = new Set(["payload", "event", "order", "body", "root"]);
// A single word is a path only where the message says so: "no occurred_at", "at created", "unusable: timestamp".
const SINGLE_AFTER = /(?:\bno|\bat|\binteger|unusable:)\s+$/;

function segmentsOf(token: string): (string | number)[] {
  const out: (string | number)[] = [];
  for (const m of token.matchAll(/([A-Za-z_$][\w$]*)|\[(\d+)\]/g)) out.push(m[1] ?? Number(m[2]));
  return out;
}

const childOf = (v: unknown, key: string | number): { ok: boolean; value: unknown } => {
  if (Array.isArray(v))
    return typeof key === "number" && key < v.length ? { ok: true, value: v[key] } : { ok: false, value: undefined };
  if (v !== null && typeof v === "object" && Object.hasOwn(v, String(key)))
    return { ok: true, value: (v as Record<string, unknown>)[String(key)] };
  return { ok: false, value: undefined };
};

function resolve(payload: unknown, segments: (string | number)[]) {
  const found: (string | number)[] = [];
  let v = payload;
  for (const s of segments) {
    const next = childOf(v, s);
    if (!next.ok) return { found, missing: s };
    found.push(s);
    v = next.value;
  }
  return { found, missing: undefined };
}

/**
 * The best path named in one message: a dotted one that reaches deepest into the payload, else a single key the
 * message names ("no occurred_at"). A token none of which is in the payload is a word or a host name, not a path,
 * unless it names the root (event.created, or a named key) and says what is missing there.
 */
function inMessage(message: string, payload: unknown): NamedPath | undefined {
  let best: (NamedPath & { score: number }) | undefined;
  for (const m of message.matchAll(TOKEN)) {
    const token = m[0];
    const single = !/[.[]/.test(token);
    if (single && !SINGLE_AFTER.test(message.slice(0, m.index))) continue;
    const segments = segmentsOf(token);
    const aliased = segments.length > 1 && ROOT_ALIASES.has(String(segments[0])) && !childOf(payload, segments[0]!).ok;
    const { found, missing } = resolve(payload, aliased ? segments.slice(1) : segments);
    if (found.length === 0 && !aliased && !single) continue;
    // Dotted paths first; deeper first; a path that is all there before one that stops short.
    const score = (single ? 0 : 1000) + found.length * 2 + (missing === undefined ? 1 : 0);
    if (!best || score > best.score) best = { named: token, found, missing, score };
  }
  if (!best) return undefined;
  const { score: _score, ...path } = best;
  return path;
}

/** The first message (the last error, then the intake note) that names a path, and that path. */
export function namedPath(messages: readonly (string | null | undefined)[], payload: unknown): NamedPath | undefined {
  for (const message of messages) {
    if (!message) continue;
    const found = inMessage(message, payload);
    if (found) return found;
  }
  return undefined;
}

/** A path as the viewer writes it: data.object.items.data[0]. */
export const pathText = (segments: readonly (string | number)[]) =>
  segments.reduce<string>(
    (p, s) =>
      typeof s === "number"
        ? `${p}[${s}]`
        : /^[A-Za-z_$][\w$]*$/.test(s)
          ? p
            ? `${p}.${s}`
            : s
          : `${p}[${JSON.stringify(s)}]`,
    "",
  );
