import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { parseUnixSeconds } from "./types";

export function hmacSha256(key: string | Buffer, ...parts: (string | Buffer)[]): Buffer {
  const mac = createHmac("sha256", key);
  for (const part of parts) mac.update(part);
  return mac.digest();
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
export function anyMatch(
  secrets: readonly string[],
  signatures: readonly Buffer[],
  expectedFor: (secret: string) => Buffer,
): boolean {
  let matched = false;
  for (const secret of secrets) {
    const expected = expectedFor(secret);
    for (const sig of signatures) if (safeEqual(expected, sig)) matched = true;
  }
  return matched;
}

export function sha256Hex(value: string): string {
  return createHash("sha256").update(value).digest("hex");
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
