export const SOURCES = ["stripe", "github", "shopify", "paddle", "slack", "standard"] as const;
export type Source = (typeof SOURCES)[number];

export function isSource(value: string): value is Source {
  return (SOURCES as readonly string[]).includes(value);
}

export type Verdict = { ok: true } | { ok: false; reason: string };

export interface VerifyInput {
  rawBody: Buffer;
  headers: Headers;
  secrets: readonly string[];
  toleranceSeconds: number;
  /** Unix seconds. */
  now: number;
}

export interface EntityRef {
  type: string;
  id: string;
  /** Monotonic per entity (ISO times in microseconds, or unix seconds: ./time.ts); absent if the provider has none. */
  version?: number;
  /** A version field was there but unusable (out of range, malformed): said, not guessed. */
  versionNote?: string;
}

export interface EventIdentity {
  eventId: string;
  eventType: string;
  entity?: EntityRef;
}

export type Described = { ok: true; event: EventIdentity } | { ok: false; reason: string };

export interface Provider {
  source: Source;
  verify(input: VerifyInput): Verdict;
  /** Reads id, type and entity from a verified, parsed payload. */
  describe(payload: unknown, headers: Headers): Described;
  /** A verified request that is a handshake, not an event (Slack's url_verification). */
  handshake?(payload: unknown): Record<string, unknown> | undefined;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A non-empty string (or safe integer, as text) at `obj[key]`. */
export function idAt(obj: unknown, key: string): string | undefined {
  if (!isObject(obj)) return undefined;
  const v = obj[key];
  if (typeof v === "string" && v.length > 0) return v;
  if (typeof v === "number" && Number.isSafeInteger(v)) return String(v);
  return undefined;
}

/** Parses a unix-seconds header; undefined unless it is a plain integer. */
export function parseUnixSeconds(value: string | null | undefined): number | undefined {
  if (!value || !/^\d{1,12}$/.test(value)) return undefined;
  return Number(value);
}

export function checkTolerance(ts: number, now: number, tolerance: number): Verdict {
  return Math.abs(now - ts) <= tolerance
    ? { ok: true }
    : { ok: false, reason: `timestamp outside the ${tolerance} s tolerance` };
}
