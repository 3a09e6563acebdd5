import {
  createHash,
  createHmac,
  createPrivateKey,
  createPublicKey,
  timingSafeEqual,
  type KeyObject,
} from "node:crypto";
import { parseUnixSeconds } from "./types";

export type HmacAlgorithm = "sha1" | "sha256" | "sha512";

/** HMAC of the parts in order, fed one by one: a 1 MB body is never copied into a concatenation. */
export function hmac(algorithm: HmacAlgorithm, key: string | Buffer, ...parts: (string | Buffer)[]): Buffer {
  const mac = createHmac(algorithm, key);
  for (const part of parts) mac.update(part);
  return mac.digest();
}

export function hmacSha256(key: string | Buffer, ...parts: (string | Buffer)[]): Buffer {
  return hmac("sha256", key, ...parts);
}

/** Constant-time for equal lengths; a length mismatch says nothing about the content. */
export function safeEqual(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Compares strings of any length in constant time by comparing their SHA-256 digests. */
export function safeEqualStrings(a: string, b: string): boolean {
  const da = createHash("sha256").update(a).digest();
  const db = createHash("sha256").update(b).digest();
  return timingSafeEqual(da, db);
}

export function decodeHex(value: string): Buffer | undefined {
  return /^[0-9a-fA-F]+$/.test(value) && value.length % 2 === 0 ? Buffer.from(value, "hex") : undefined;
}

export function decodeBase64(value: string): Buffer | undefined {
  return /^[A-Za-z0-9+/]+={0,2}$/.test(value) ? Buffer.from(value, "base64") : undefined;
}

/** True when any (secret, signature) pair matches. Every candidate is checked with safeEqual. */
export function anyMatch<S = string>(
  secrets: readonly S[],
  signatures: readonly Buffer[],
  expectedFor: (secret: S) => Buffer,
): boolean {
  let matched = false;
  for (const secret of secrets) {
    const expected = expectedFor(secret);
    for (const sig of signatures) if (safeEqual(expected, sig)) matched = true;
  }
  return matched;
}

/**
 * `t=…,v1=…,v1=…` (Stripe) and `ts=…;h1=…;h1=…` (Paddle): one timestamp and every hex signature
 * under `signatureKey` (several while a secret is being rotated).
 */
export function parseTimestampedHeader(
  header: string,
  opts: { separator: string; timestampKey: string; signatureKey: string },
) {
  let timestamp: number | undefined;
  const signatures: Buffer[] = [];
  for (const part of header.split(opts.separator)) {
    const [k, v] = part.split("=", 2).map((s) => s.trim());
    if (k === opts.timestampKey) timestamp = parseUnixSeconds(v);
    else if (k === opts.signatureKey && v) {
      const sig = decodeHex(v);
      if (sig) signatures.push(sig);
    }
  }
  return { timestamp, signatures };
}

// RFC 8410 PKCS#8 prefix for a raw 32-byte Ed25519 seed: node:crypto takes no raw private keys.
const ED25519_PKCS8_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");

/** An Ed25519 public key from its raw 32 bytes; undefined for any other length. */
export function ed25519PublicKey(raw: Buffer): KeyObject | undefined {
  if (raw.length !== 32) return undefined;
  return createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: raw.toString("base64url") }, format: "jwk" });
}

/** An Ed25519 key pair from a raw 32-byte seed. */
export function ed25519KeyPair(seed: Buffer): { privateKey: KeyObject; publicKey: KeyObject } | undefined {
  if (seed.length !== 32) return undefined;
  const privateKey = createPrivateKey({
    key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]),
    format: "der",
    type: "pkcs8",
  });
  return { privateKey, publicKey: createPublicKey(privateKey) };
}

/** The raw 32 bytes of an Ed25519 public key. */
export function ed25519RawPublicKey(key: KeyObject): Buffer {
  return Buffer.from(key.export({ format: "jwk" }).x ?? "", "base64url");
}
