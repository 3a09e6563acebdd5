import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createSecretBox, parseSecretKey, SecretKeyError } from "@/lib/sources/secret-box";

const KEY = randomBytes(32);

describe("the secret box (AES-256-GCM under LEDGER_SECRET_KEY)", () => {
  it("[sources] a sealed secret opens with its key and binding, and its text holds no plaintext", () => {
    const box = createSecretBox(KEY);
    const sealed = box.seal("whsec_plaintext_value", "stripe-eu/1");
    expect(sealed).not.toContain("whsec_plaintext_value");
    expect(sealed.startsWith(`v1:${box.keyId}:`)).toBe(true);
    expect(box.open(sealed, "stripe-eu/1")).toBe("whsec_plaintext_value");
    // A fresh IV every time: the same secret never seals to the same text.
    expect(box.seal("whsec_plaintext_value", "stripe-eu/1")).not.toBe(sealed);
  });

  it("[sources] another key, another row or a flipped byte does not open, with a message that says which", () => {
    const box = createSecretBox(KEY);
    const sealed = box.seal("s3cret", "a/1");
    expect(() => createSecretBox(randomBytes(32)).open(sealed, "a/1")).toThrow(
      /sealed under another LEDGER_SECRET_KEY/,
    );
    expect(() => box.open(sealed, "b/1")).toThrow(/moved to another row/);
    const parts = sealed.split(":");
    const data = Buffer.from(parts[4]!, "base64");
    data[0] = data[0]! ^ 1;
    parts[4] = data.toString("base64");
    expect(() => box.open(parts.join(":"), "a/1")).toThrow(SecretKeyError);
  });

  it("[sources] fingerprints are stable per key, differ across keys and reveal nothing of the secret", () => {
    const a = createSecretBox(KEY);
    expect(a.fingerprint("whsec_x")).toBe(a.fingerprint("whsec_x"));
    expect(a.fingerprint("whsec_x")).not.toBe(a.fingerprint("whsec_y"));
    expect(createSecretBox(randomBytes(32)).fingerprint("whsec_x")).not.toBe(a.fingerprint("whsec_x"));
    expect(a.fingerprint("whsec_x")).toMatch(/^fp_[0-9a-f]{12}$/);
  });

  it("[sources] LEDGER_SECRET_KEY is 32 bytes as hex or base64; anything else is refused with how to make one", () => {
    expect(parseSecretKey(KEY.toString("hex"))).toEqual(KEY);
    expect(parseSecretKey(KEY.toString("base64"))).toEqual(KEY);
    expect(() => parseSecretKey("too-short")).toThrow(/openssl rand -hex 32/);
    expect(() => parseSecretKey(randomBytes(16).toString("hex"))).toThrow(SecretKeyError);
  });
});
