/** The provider kinds a source can be (db/schema/sources.ts); "generic" is configured per source (./generic.ts). */
export const PROVIDER_KINDS = ["stripe", "github", "shopify", "paddle", "slack", "standard", "generic"] as const;
export type ProviderKind = (typeof PROVIDER_KINDS)[number];

export function isProviderKind(value: string): value is ProviderKind {
  return (PROVIDER_KINDS as readonly string[]).includes(value);
}

/** Why a delivery was refused at the signature step: what the sources page counts (lib/sources/refusals.ts). */
export type SignatureRefusal = "bad_signature" | "stale_timestamp";

export type Verdict = { ok: true } | { ok: false; reason: string; refusal: SignatureRefusal };

/**
 * A request's headers as the receiver reads them: Fetch's Headers is one; node:http's request gives a lighter one
 * (lib/receiver/node.ts). Names are compared without case; repeated headers read as one value joined with ", ".
 */
export interface RequestHeaders {
  get(name: string): string | null;
  has(name: string): boolean;
  forEach(callback: (value: string, name: string) => void): void;
}

export interface VerifyInput {
  rawBody: Buffer;
  headers: RequestHeaders;
  secrets: readonly string[];
  toleranceSeconds: number;
  /** Unix seconds. */
  now: number;
  /** The source's options, already checked by the provider's `options` schema ({} for most kinds). */
  options?: unknown;
}

export interface SignInput {
  rawBody: string;
  secret: string;
  /** Unix seconds. */
  now: number;
  /** Where the kind carries its event id in a header (GitHub, Shopify, Standard Webhooks, generic). */
  eventId: string;
  /** Where the kind carries its type in a header (GitHub's X-GitHub-Event, Shopify's topic, generic). */
  eventType: string;
  options?: unknown;
}

/** What describe sees besides the parsed payload. */
export interface DescribeContext {
  /** The exact body text: ids JSON.parse would round (above 2^53) are read from it. */
  rawText?: string;
  /** The source's options, already checked by the provider's `options` schema. */
  options?: unknown;
}

export interface EntityRef {
  type: string;
  id: string;
  /**
   * Monotonic per entity (ISO times in microseconds, or unix seconds: ./time.ts, which gives safe integers only);
   * absent if the provider has none.
   */
  version?: number;
  /** A version field was there but unusable (out of range, malformed): said, not guessed. */
  versionNote?: string;
}

/** Never empty: a kind reads them with idAt or textAtPath (empty reads as missing) and types a typeless event "unknown". */
export interface EventIdentity {
  eventId: string;
  eventType: string;
  entity?: EntityRef;
}

export type Described = { ok: true; event: EventIdentity } | { ok: false; reason: string };

/**
 * Where a body is one event. "type": the provider sends one body under several types on purpose (Shopify's
 * topics of one order), so the body is a key per event type, as the id is. "source": one body is one event,
 * whatever type a delivery claims for it.
 */
export type BodyKeyScope = "type" | "source";

export interface Provider {
  kind: ProviderKind;
  /** "Stripe", "Standard Webhooks": what the console calls it. */
  label: string;
  /** The request headers that carry its signature (refusal metadata says which was present). */
  signatureHeaders: readonly string[];
  /**
   * The signature leaves the delivery id (or the type) out: a captured body re-sent under a new one must still
   * be a duplicate, so the body's SHA-256 is a second key, within this scope (BodyKeyScope). A function when
   * it depends on the source's options (generic: an id or type read from a header).
   */
  unsignedId?: BodyKeyScope | ((options: unknown) => BodyKeyScope | undefined);
  /**
   * Checks a source's options (SOURCES_FILE, the console) and returns them normalised; absent: the kind
   * takes none. Throws a zod error naming the field.
   */
  parseOptions?(options: unknown): unknown;
  verify(input: VerifyInput): Verdict;
  /** Reads id, type and entity from a verified, parsed payload. */
  describe(payload: unknown, headers: RequestHeaders, context?: DescribeContext): Described;
  /**
   * The headers a real sender would send with `rawBody` (content-type included): the console's test event
   * and the demo sign with it. undefined when the secret cannot sign (an ed25519 public key).
   */
  sign?(input: SignInput): Record<string, string> | undefined;
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

/** A refusal for a missing, malformed or mismatched signature (every refusal but a stale timestamp). */
export function badSignature(reason: string): Verdict {
  return { ok: false, reason, refusal: "bad_signature" };
}

export function checkTolerance(ts: number, now: number, tolerance: number): Verdict {
  return Math.abs(now - ts) <= tolerance
    ? { ok: true }
    : { ok: false, reason: `timestamp outside the ${tolerance} s tolerance`, refusal: "stale_timestamp" };
}
