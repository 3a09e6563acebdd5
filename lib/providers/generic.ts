import { createHash } from "node:crypto";
import { z } from "zod";
import { anyMatch, decodeBase64, decodeHex, hmac } from "./crypto";
import { DotPath, HeaderName, optionsError, optionsReader, textAtPath, valueAtPath } from "./options";
import { versionFromInteger, versionFromIso, versionOf, type VersionRead } from "./time";
import {
  badSignature,
  checkTolerance,
  parseUnixSeconds,
  type Described,
  type EntityRef,
  type Provider,
  type Verdict,
  type RequestHeaders,
} from "./types";

/**
 * "Generic HMAC": the long tail of senders that sign with an HMAC of the body (or of a template around it)
 * and put the digest in a header. Configured per source; lib/samples/generic.ts holds real ones, e.g.
 *
 * Typeform — `Typeform-Signature: sha256=<base64 HMAC-SHA256 of the body>`, id and type in the body:
 *   { signatureHeader: "Typeform-Signature", algorithm: "sha256", encoding: "base64", prefix: "sha256=",
 *     eventId: { path: "event_id" }, eventType: { path: "event_type" },
 *     versionPath: "form_response.submitted_at",
 *     entity: { type: "form_response", idPath: "form_response.token" } }
 *
 * Lemon Squeezy — `X-Signature: <hex HMAC-SHA256 of the body>`, `X-Event-Name`, and no event id at all, so
 * the id is a hash of the fields that name one change of one object (never of the whole body):
 *   { signatureHeader: "X-Signature", algorithm: "sha256", encoding: "hex",
 *     eventId: { hashOf: ["meta.event_name", "data.type", "data.id", "data.attributes.updated_at"] },
 *     eventType: { header: "X-Event-Name" }, versionPath: "data.attributes.updated_at",
 *     entity: { typePath: "data.type", idPath: "data.id" } }
 *
 * Zoom — `x-zm-signature: v0=<hex>` of `v0:{timestamp}:{body}`, the timestamp in `x-zm-request-timestamp`
 * (so the tolerance applies): signedContent: { template: "v0:{timestamp}:{body}",
 * timestampHeader: "x-zm-request-timestamp" }. (Its endpoint.url_validation handshake is not answered.)
 */

// {body} once, {timestamp} once at most: anything else in braces is a typo ({ts}), refused at config time.
const Template = z
  .string()
  .max(256)
  .refine((t) => t.split("{body}").length === 2, "must contain {body} exactly once")
  .refine((t) => t.split("{timestamp}").length === 2, "must contain {timestamp} exactly once (it is what is signed)")
  .refine(
    (t) =>
      t
        .replace("{body}", "")
        .replace("{timestamp}", "")
        .search(/\{[A-Za-z_]*\}/) === -1,
    {
      message: "only {body} and {timestamp} are placeholders",
    },
  );

const exactlyOne = (keys: string[]) => (o: Record<string, unknown>) =>
  keys.filter((k) => o[k] !== undefined).length === 1;

export const GenericOptions = z.strictObject({
  signatureHeader: HeaderName,
  algorithm: z.enum(["sha1", "sha256", "sha512"]),
  encoding: z.enum(["hex", "base64"]),
  /** Text before the digest in the header, e.g. "sha256=" or "v0=". */
  prefix: z.string().min(1).max(32).optional(),
  signedContent: z
    .union([z.literal("body"), z.strictObject({ template: Template, timestampHeader: HeaderName })], {
      error: 'want "body" or { template, timestampHeader }',
    })
    .default("body"),
  eventId: z
    .strictObject({
      header: HeaderName.optional(),
      path: DotPath.optional(),
      /** For senders with no event id: SHA-256 of these fields' values, which a retry repeats exactly. */
      hashOf: z.array(DotPath).min(1).max(16).readonly().optional(),
    })
    .refine(exactlyOne(["header", "path", "hashOf"]), "give exactly one of header, path or hashOf"),
  eventType: z
    .strictObject({ header: HeaderName.optional(), path: DotPath.optional() })
    .refine(exactlyOne(["header", "path"]), "give exactly one of header or path")
    .optional(),
  /** An ISO 8601 time or unix seconds: the entity version, in microseconds either way. */
  versionPath: DotPath.optional(),
  entity: z
    .strictObject({ type: z.string().min(1).max(64).optional(), typePath: DotPath.optional(), idPath: DotPath })
    .refine((e) => e.type !== undefined || e.typePath !== undefined, "give type or typePath")
    .optional(),
});
export type GenericOptions = z.infer<typeof GenericOptions>;
/** What a source declares (SOURCES_FILE, the console), before defaults and lower-casing. */
export type GenericOptionsInput = z.input<typeof GenericOptions>;
const options = optionsReader(GenericOptions);

/** What is signed: the body, or the template with the timestamp header's exact text and the body in place. */
function signedParts(o: GenericOptions, timestamp: string, rawBody: Buffer | string): (string | Buffer)[] {
  if (o.signedContent === "body") return [rawBody];
  const [before = "", after = ""] = o.signedContent.template.split("{body}");
  return [before.replace("{timestamp}", timestamp), rawBody, after.replace("{timestamp}", timestamp)];
}

function verifyWith(o: GenericOptions, input: Parameters<Provider["verify"]>[0]): Verdict {
  const { rawBody, headers, secrets, toleranceSeconds, now } = input;
  const name = o.signatureHeader;
  const header = headers.get(name)?.trim();
  if (!header) return badSignature(`missing ${name} header`);
  const prefix = o.prefix ?? "";
  const digest = header.startsWith(prefix) ? header.slice(prefix.length) : undefined;
  const sig = digest === undefined ? undefined : o.encoding === "hex" ? decodeHex(digest) : decodeBase64(digest);
  if (!sig) return badSignature(`malformed ${name} header (want ${prefix}<${o.encoding}>)`);
  let ts: number | undefined;
  let tsText = "";
  if (o.signedContent !== "body") {
    tsText = headers.get(o.signedContent.timestampHeader)?.trim() ?? "";
    ts = parseUnixSeconds(tsText);
    if (ts === undefined) return badSignature(`missing or malformed ${o.signedContent.timestampHeader} header`);
  }
  const parts = signedParts(o, tsText, rawBody);
  if (!anyMatch(secrets, [sig], (secret) => hmac(o.algorithm, secret, ...parts)))
    return badSignature("signature mismatch");
  return ts === undefined ? { ok: true } : checkTolerance(ts, now, toleranceSeconds);
}

/** SHA-256 of the listed fields' values; a missing or non-scalar field is named, never skipped. */
function hashedId(payload: unknown, paths: readonly string[]): { id: string } | { reason: string } {
  const values = paths.map((p) => valueAtPath(payload, p));
  const missing = paths.filter((_, i) => values[i] === undefined || values[i] === null);
  if (missing.length) return { reason: `missing event id fields (payload.${missing.join(", payload.")})` };
  const odd = paths.filter((_, i) => {
    const v = values[i];
    if (typeof v === "number") return !Number.isFinite(v) || (Number.isInteger(v) && !Number.isSafeInteger(v));
    return typeof v !== "string" && typeof v !== "boolean";
  });
  // Objects re-serialise in another key order and numbers past 2^53 collide once rounded: neither is an id.
  if (odd.length)
    return { reason: `event id fields not a string, boolean or exact number (payload.${odd.join(", payload.")})` };
  const digest = createHash("sha256")
    .update(JSON.stringify(paths.map((p, i) => [p, values[i]])))
    .digest("hex");
  return { id: `sha256:${digest}` };
}

function versionAt(payload: unknown, path: string): VersionRead {
  const value = valueAtPath(payload, path);
  if (typeof value !== "number") return versionFromIso(value, path);
  // Unix seconds scaled to microseconds, so ISO and numeric times of one source compare.
  const read = versionFromInteger(value, path);
  if (read.version === undefined) return read;
  const micros = read.version * 1_000_000;
  return Number.isSafeInteger(micros)
    ? { version: micros }
    : { note: `version unusable: ${path} ${value} is too large` };
}

function describeWith(o: GenericOptions, payload: unknown, headers: RequestHeaders): Described {
  let eventId: string | undefined;
  if (o.eventId.header) {
    eventId = headers.get(o.eventId.header)?.trim() || undefined;
    if (!eventId) return { ok: false, reason: `missing event id (${o.eventId.header} header)` };
  } else if (o.eventId.path) {
    eventId = textAtPath(payload, o.eventId.path);
    if (!eventId) return { ok: false, reason: `missing event id (payload.${o.eventId.path})` };
  } else {
    const hashed = hashedId(payload, o.eventId.hashOf ?? []);
    if ("reason" in hashed) return { ok: false, reason: hashed.reason };
    eventId = hashed.id;
  }
  const typed = o.eventType;
  const eventType =
    (typed?.header ? headers.get(typed.header)?.trim() : typed?.path ? textAtPath(payload, typed.path) : undefined) ||
    "unknown";
  let entity: EntityRef | undefined;
  if (o.entity) {
    const id = textAtPath(payload, o.entity.idPath);
    const type = (o.entity.typePath ? textAtPath(payload, o.entity.typePath) : undefined) ?? o.entity.type;
    const version = o.versionPath ? versionOf(versionAt(payload, o.versionPath)) : {};
    if (id && type) entity = { type, id, ...version };
  }
  return { ok: true, event: { eventId, eventType, entity } };
}

export const generic: Provider = {
  kind: "generic",
  label: "Generic HMAC",
  // Each source names its own (options.signatureHeader): there is no fixed one to list.
  signatureHeaders: [],
  parseOptions: (raw) => options.parse(raw),
  // Only the body (and a timestamp) is signed: an id or type read from a header proves nothing on a re-sent
  // capture, and a sender's type header is no routing we know of, so one body is one event (options it cannot
  // read are refused by describe; the key stays on).
  unsignedId(raw) {
    let o: GenericOptions;
    try {
      o = options.read(raw);
    } catch {
      return "source";
    }
    return o.eventId.header !== undefined || o.eventType?.header !== undefined ? "source" : undefined;
  },
  verify(input) {
    let o: GenericOptions;
    try {
      o = options.read(input.options);
    } catch (err) {
      return badSignature(`source options invalid: ${optionsError(err)}`);
    }
    return verifyWith(o, input);
  },
  describe(payload, headers, context) {
    let o: GenericOptions;
    try {
      o = options.read(context?.options);
    } catch (err) {
      return { ok: false, reason: `source options invalid: ${optionsError(err)}` };
    }
    return describeWith(o, payload, headers);
  },
  sign({ rawBody, secret, now, eventId, eventType, options: raw }) {
    const o = options.read(raw);
    const timestamp = String(now);
    const digest = hmac(o.algorithm, secret, ...signedParts(o, timestamp, rawBody)).toString(o.encoding);
    const headers: Record<string, string> = {
      "content-type": "application/json",
      [o.signatureHeader]: `${o.prefix ?? ""}${digest}`,
    };
    if (o.signedContent !== "body") headers[o.signedContent.timestampHeader] = timestamp;
    if (o.eventId.header) headers[o.eventId.header] = eventId;
    if (o.eventType?.header) headers[o.eventType.header] = eventType;
    return headers;
  },
};
