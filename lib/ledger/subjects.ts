import { isObject } from "@/lib/providers/types";

// Provider object ids: cus_NffrFeUfNV2Hib (Stripe), ctm_01h8…, sub_01h8… (Paddle). Real ids always
// hold a digit or a capital after the prefix; enum values like charge_automatically do not.
const PREFIXED_ID = /^[a-z]{2,12}_(?=[A-Za-z0-9]*[0-9A-Z])[A-Za-z0-9]{6,64}$/;
// The local part as addresses in use spell it (RFC 5322 atext and dots: o'connor, jenny+tag, first.last; and
// non-ASCII, RFC 6531); not the quoted or bracketed forms that only appear inside text.
const EMAIL = /^[^\s@<>()[\]",;:]{1,64}@[A-Za-z0-9.-]{1,253}\.[A-Za-z]{2,24}$/;
// GitHub's owner/name (repository.full_name): owners are 1–39 of [A-Za-z0-9-], names 1–100 of [A-Za-z0-9._-].
const REPO_FULL_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})\/[A-Za-z0-9._-]{1,100}$/;
// Keys whose scalar value names a customer or object even when it has no prefix (Shopify, GitHub).
const ID_KEYS = new Set([
  "id",
  "customer",
  "customer_id",
  "user_id",
  "subscription",
  "subscription_id",
  "login",
  "order_id",
  "user",
  "channel",
  "team_id",
]);

const MAX_SUBJECTS = 64;
const MAX_DEPTH = 8;
// The raw scan reads at most this much text (bodies are capped at 1 MB before this runs anyway).
const MAX_SCAN_CHARS = 1 << 20;
// `"<id key>": <integer too long to be safe>`. No nested quantifier: linear in the text scanned.
const BIG_ID = new RegExp(`"(${[...ID_KEYS].join("|")})"\\s{0,16}:\\s{0,16}(\\d{16,40})(?![\\d.eE])`, "g");

/**
 * Integers beyond Number.MAX_SAFE_INTEGER under an id key (Shopify's 18-digit order and customer ids),
 * exactly as the body wrote them: JSON.parse rounds them, so the parsed tree cannot give them.
 */
function bigIdsIn(rawText: string, walk: Walk): void {
  const text = rawText.length > MAX_SCAN_CHARS ? rawText.slice(0, MAX_SCAN_CHARS) : rawText;
  BIG_ID.lastIndex = 0;
  for (let m = BIG_ID.exec(text); m && walk.truncated !== "ids"; m = BIG_ID.exec(text)) {
    const digits = m[2] ?? "";
    if (escapedQuoteAt(text, m.index) || BigInt(digits) <= BigInt(Number.MAX_SAFE_INTEGER)) continue;
    add(walk, digits);
  }
}

/** A `"` preceded by an odd run of backslashes is inside a JSON string, not a key. */
function escapedQuoteAt(text: string, index: number): boolean {
  let slashes = 0;
  for (let i = index - 1; i >= 0 && text[i] === "\\" && slashes < 64; i--) slashes++;
  return slashes % 2 === 1;
}

/** Why extraction stopped before the end of a payload: the id cap, or the depth cap (ids deeper were not read). */
export type SubjectTruncation = "ids" | "depth";

export interface SubjectExtraction {
  ids: string[];
  /** Set when ids were left out: search finds the event by `ids` only, erasure reads the raw body too. */
  truncated?: SubjectTruncation;
}

/** The caps, for the sentence a page shows when extraction stopped at one. */
export const SUBJECT_LIMITS = { ids: MAX_SUBJECTS, depth: MAX_DEPTH } as const;

/**
 * Every customer/object id and email found in a payload, for support search ("every event that
 * touched cus_…"). Bounded in depth and count: payloads are attacker-sized. Given the body's exact
 * text, ids too long for a JSON number to hold are read from it.
 */
export function extractSubjectIds(payload: unknown, rawText?: string): string[] {
  return subjectExtraction(payload, rawText).ids;
}

/** extractSubjectIds, and whether it stopped at a cap (the event page says so). */
export function subjectExtraction(payload: unknown, rawText?: string): SubjectExtraction {
  const walk: Walk = { found: new Set(), truncated: undefined };
  visitIds(walk, payload, undefined, 0);
  if (rawText !== undefined && walk.truncated !== "ids") bigIdsIn(rawText, walk);
  const ids = [...walk.found];
  return walk.truncated ? { ids, truncated: walk.truncated } : { ids };
}

interface Walk {
  found: Set<string>;
  truncated: SubjectTruncation | undefined;
}

/** Adds an id; one more than the cap allows marks the walk truncated instead. */
function add(walk: Walk, id: string): void {
  if (walk.found.size < MAX_SUBJECTS) walk.found.add(id);
  else if (!walk.found.has(id)) walk.truncated = "ids";
}

// Module-level, not a closure: tsx names each closure it creates (esbuild's keepNames) with a defineProperty call.
function visitIds(walk: Walk, value: unknown, key: string | undefined, depth: number): void {
  if (walk.truncated === "ids") return;
  if (depth > MAX_DEPTH) {
    if (value !== null && typeof value !== "boolean") walk.truncated ??= "depth";
    return;
  }
  if (typeof value === "string") {
    if (value.length > 320) return;
    // The includes first: most strings hold neither character, and a regex test costs more than the look.
    if (value.includes("_") && PREFIXED_ID.test(value)) add(walk, value);
    else if (value.includes("@") && EMAIL.test(value)) add(walk, value.toLowerCase());
    else if (key === "full_name") {
      if (REPO_FULL_NAME.test(value)) add(walk, value);
    } else if (key && ID_KEYS.has(key) && value.length > 0 && value.length <= 128) add(walk, value);
  } else if (typeof value === "number") {
    if (key && ID_KEYS.has(key) && Number.isSafeInteger(value)) add(walk, String(value));
  } else if (Array.isArray(value)) {
    for (const item of value) visitIds(walk, item, key, depth + 1);
  } else if (isObject(value)) {
    // for…in, not Object.entries: no [key, value] pair allocated per property on the claim path.
    for (const k in value) if (Object.hasOwn(value, k)) visitIds(walk, value[k], k, depth + 1);
  }
}
