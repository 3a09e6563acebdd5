import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from "node:crypto";

/**
 * AES-256-GCM for the console's source secrets, under LEDGER_SECRET_KEY. The sealed text names the key
 * (its id, not the key) and is bound to the source and secret id it belongs to (GCM's additional data),
 * so a sealed value copied onto another row does not open.
 */
export interface SecretBox {
  /** 8 hex characters naming the key, stored with every sealed value. */
  keyId: string;
  seal(plaintext: string, boundTo: string): string;
  /** Throws a message a person can act on: another key, or a damaged value. */
  open(sealed: string, boundTo: string): string;
  /** Names a secret without revealing it: a keyed hash, useless to guess the secret offline. */
  fingerprint(plaintext: string): string;
}

export class SecretKeyError extends Error {
  override name = "SecretKeyError";
}

/** LEDGER_SECRET_KEY: 32 bytes as 64 hex characters or as base64 (openssl rand -hex 32). */
export function parseSecretKey(text: string): Buffer {
  const value = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(value)) return Buffer.from(value, "hex");
  const b64 = /^[A-Za-z0-9+/_-]{43}=?$/.test(value) ? Buffer.from(value, "base64") : undefined;
  if (b64?.length === 32) return b64;
  throw new SecretKeyError("LEDGER_SECRET_KEY must be 32 bytes, as 64 hex characters (openssl rand -hex 32)");
}

export function createSecretBox(key: Buffer): SecretBox {
  if (key.length !== 32) throw new SecretKeyError("LEDGER_SECRET_KEY must be 32 bytes");
  const keyId = createHash("sha256").update("webhook-ledger key id").update(key).digest("hex").slice(0, 8);
  // A separate key for fingerprints: the encryption key is never used for anything else.
  const fingerprintKey = createHmac("sha256", key).update("webhook-ledger fingerprint").digest();
  return {
    keyId,
    seal(plaintext, boundTo) {
      const iv = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", key, iv);
      cipher.setAAD(Buffer.from(boundTo));
      const data = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
      return ["v1", keyId, iv.toString("base64"), cipher.getAuthTag().toString("base64"), data.toString("base64")].join(
        ":",
      );
    },
    open(sealed, boundTo) {
      const [version, id, iv, tag, data] = sealed.split(":");
      if (version !== "v1" || !iv || !tag || data === undefined) throw new SecretKeyError("not a sealed secret");
      if (id !== keyId)
        throw new SecretKeyError(`sealed under another LEDGER_SECRET_KEY (key ${id}; this process has ${keyId})`);
      try {
        const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64"));
        decipher.setAAD(Buffer.from(boundTo));
        decipher.setAuthTag(Buffer.from(tag, "base64"));
        return Buffer.concat([decipher.update(Buffer.from(data, "base64")), decipher.final()]).toString("utf8");
      } catch {
        throw new SecretKeyError("a sealed secret failed its integrity check (damaged, or moved to another row)");
      }
    },
    fingerprint: (plaintext) => fingerprintWith(fingerprintKey, plaintext),
  };
}

const fingerprintWith = (key: Buffer | string, plaintext: string) =>
  `fp_${createHmac("sha256", key).update(plaintext).digest("hex").slice(0, 12)}`;

/**
 * Declared secrets (from the environment) are fingerprinted with this when no LEDGER_SECRET_KEY is set:
 * still stable and short, but then only as strong as the secret itself (provider secrets are long and random).
 */
export const unkeyedFingerprint = (plaintext: string) => fingerprintWith("webhook-ledger declared secret", plaintext);
