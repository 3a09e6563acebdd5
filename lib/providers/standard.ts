import { sign as edSign, verify as edVerify, type KeyObject } from "node:crypto";
import { z } from "zod";
import {
  anyMatch,
  decodeBase64,
  ed25519KeyPair,
  ed25519PublicKey,
  ed25519RawPublicKey,
  hmacSha256,
  safeEqual,
} from "./crypto";
import { DotPath, optionsError, optionsReader, textAtPath } from "./options";
import { badSignature, checkTolerance, idAt, isObject, parseUnixSeconds, type Provider } from "./types";
import { versionFromIso, versionOf } from "./time";

export const StandardOptions = z.strictObject({
  /** Where the event type is when the body has no `type` ("event", "meta.type"). */
  typePath: DotPath.optional(),
});
export type StandardOptions = z.infer<typeof StandardOptions>;
const options = optionsReader(StandardOptions);

/**
 * A secret in the spec's serialisation: `whsec_<base64>` (HMAC key, v1), `whpk_<base64 32-byte public
 * key>` (ed25519, v1a, verify only) or `whsk_<base64 seed ‖ public key>` (as Svix issues them; a bare
 * 32-byte seed too). Without a prefix it is a bare base64 HMAC key, as the libraries accept. Base64 is
 * decoded strictly, as the libraries do: a key they refuse verifies and signs nothing here either.
 */
type Key =
  | { kind: "hmac"; key: Buffer }
  | { kind: "ed25519"; publicKey: KeyObject; privateKey?: KeyObject }
  | { kind: "unusable" };

function parseKey(secret: string): Key {
  if (secret.startsWith("whpk_")) {
    const raw = decodeBase64(secret.slice(5));
    const publicKey = raw && ed25519PublicKey(raw);
    return publicKey ? { kind: "ed25519", publicKey } : { kind: "unusable" };
  }
  if (secret.startsWith("whsk_")) {
    const raw = decodeBase64(secret.slice(5));
    const pair = raw && (raw.length === 64 || raw.length === 32) ? ed25519KeyPair(raw.subarray(0, 32)) : undefined;
    // A 64-byte key whose second half is not the seed's public key is corrupt: refuse it, do not guess.
    if (!pair || (raw?.length === 64 && !safeEqual(ed25519RawPublicKey(pair.publicKey), raw.subarray(32))))
      return { kind: "unusable" };
    return { kind: "ed25519", ...pair };
  }
  const key = decodeBase64(secret.startsWith("whsec_") ? secret.slice(6) : secret);
  return key && key.length > 0 ? { kind: "hmac", key } : { kind: "unusable" };
}

// The spec's lower bound for an HMAC key (and what Svix issues): shorter is a truncated paste.
const MIN_HMAC_BYTES = 24;

/** Why a pasted secret cannot be a Standard Webhooks key, or undefined: the same parse verify and sign use. */
export function standardSecretProblem(secret: string): string | undefined {
  const key = parseKey(secret);
  const expected =
    "a Standard Webhooks secret looks like whsec_<base64 of at least 24 bytes> (HMAC), " +
    "whpk_<base64 of a 32-byte ed25519 public key> or whsk_<base64 of an ed25519 signing key>";
  if (key.kind === "unusable") return expected;
  if (key.kind === "hmac" && key.key.length < MIN_HMAC_BYTES)
    return `${expected}; this one decodes to ${key.key.length} bytes, fewer than ${MIN_HMAC_BYTES}`;
  return undefined;
}

// Key objects are built once per secret, not per delivery; secrets are configuration, so few.
const keys = new Map<string, Key>();
function keyOf(secret: string): Key {
  let key = keys.get(secret);
  if (!key) {
    if (keys.size >= 256) keys.clear();
    key = parseKey(secret);
    keys.set(secret, key);
  }
  return key;
}

// The header lists one signature per active key (rotation); more than this is not a real sender.
const MAX_SIGNATURES = 8;

export const standard: Provider = {
  kind: "standard",
  label: "Standard Webhooks",
  signatureHeaders: ["webhook-signature"],
  parseOptions: (raw) => options.parse(raw),
  verify({ rawBody, headers, secrets, toleranceSeconds, now }) {
    const id = headers.get("webhook-id");
    const header = headers.get("webhook-signature");
    if (!header) return badSignature("missing webhook-signature header");
    if (!id) return badSignature("missing webhook-id header");
    const ts = parseUnixSeconds(headers.get("webhook-timestamp"));
    if (ts === undefined) return badSignature("missing or malformed webhook-timestamp header");
    // Space-separated `v1,<base64>` (HMAC-SHA256) and `v1a,<base64>` (ed25519) entries; others are skipped.
    const v1: Buffer[] = [];
    const v1a: Buffer[] = [];
    for (const entry of header.split(" ", MAX_SIGNATURES)) {
      const [version, value = ""] = entry.split(",", 2);
      const sig = version === "v1" || version === "v1a" ? decodeBase64(value) : undefined;
      if (sig && version === "v1") v1.push(sig);
      else if (sig && sig.length === 64) v1a.push(sig);
    }
    if (v1.length + v1a.length === 0)
      return badSignature("malformed webhook-signature header (want v1,<base64> or v1a,<base64>)");
    const parsed = secrets.map(keyOf);
    const hmacKeys = parsed.flatMap((k) => (k.kind === "hmac" ? [k.key] : []));
    let ok = v1.length > 0 && anyMatch(hmacKeys, v1, (key) => hmacSha256(key, `${id}.${ts}.`, rawBody));
    const publicKeys = parsed.flatMap((k) => (k.kind === "ed25519" ? [k.publicKey] : []));
    if (!ok && v1a.length > 0 && publicKeys.length > 0) {
      // Signed content as for v1; ed25519 verification is constant-time in itself (and the key is public).
      const message = Buffer.concat([Buffer.from(`${id}.${ts}.`), rawBody]);
      ok = publicKeys.some((key) => v1a.some((sig) => edVerify(null, message, key, sig)));
    }
    if (!ok) return badSignature("signature mismatch");
    return checkTolerance(ts, now, toleranceSeconds);
  },
  describe(payload, headers, context) {
    const eventId = headers.get("webhook-id");
    if (!eventId) return { ok: false, reason: "missing event id (webhook-id header)" };
    // The spec only recommends type/timestamp/data: a signed event without them is still an event.
    let typePath: string | undefined;
    try {
      typePath = options.read(context?.options).typePath;
    } catch (err) {
      return { ok: false, reason: `source options invalid: ${optionsError(err)}` };
    }
    const eventType = idAt(payload, "type") ?? (typePath ? textAtPath(payload, typePath) : undefined) ?? "unknown";
    const data = isObject(payload) ? payload.data : undefined;
    const id = idAt(data, "id");
    const version = versionOf(versionFromIso(isObject(payload) ? payload.timestamp : undefined, "timestamp"));
    // Without a type there is no entity type, and ids of unrelated objects must not share a timeline.
    const type = eventType === "unknown" ? undefined : (eventType.split(".")[0] ?? eventType);
    return { ok: true, event: { eventId, eventType, entity: id && type ? { type, id, ...version } : undefined } };
  },
  sign({ rawBody, secret, now, eventId }) {
    const key = keyOf(secret);
    const content = `${eventId}.${now}.${rawBody}`;
    let signature: string;
    if (key.kind === "hmac") signature = `v1,${hmacSha256(key.key, content).toString("base64")}`;
    else if (key.kind === "ed25519" && key.privateKey)
      signature = `v1a,${edSign(null, Buffer.from(content), key.privateKey).toString("base64")}`;
    else return undefined;
    return {
      "content-type": "application/json",
      "webhook-id": eventId,
      "webhook-timestamp": String(now),
      "webhook-signature": signature,
    };
  },
};
