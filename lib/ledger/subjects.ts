import { isObject } from "@/lib/providers/types";

// Provider object ids: cus_NffrFeUfNV2Hib (Stripe), ctm_01h8…, sub_01h8… (Paddle). Real ids always
// hold a digit or a capital after the prefix; enum values like charge_automatically do not.
const PREFIXED_ID = /^[a-z]{2,12}_(?=[A-Za-z0-9]*[0-9A-Z])[A-Za-z0-9]{6,64}$/;
const EMAIL = /^[^\s@<>()[\]"',;:]{1,64}@[A-Za-z0-9.-]{1,253}\.[A-Za-z]{2,24}$/;
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

/**
 * Every customer/object id and email found in a payload, for support search ("every event that
 * touched cus_…"). Bounded in depth and count: payloads are attacker-sized.
 */
export function extractSubjectIds(payload: unknown): string[] {
  const found = new Set<string>();
  const visit = (value: unknown, key: string | undefined, depth: number) => {
    if (found.size >= MAX_SUBJECTS || depth > MAX_DEPTH) return;
    if (typeof value === "string") {
      if (value.length > 320) return;
      if (PREFIXED_ID.test(value)) found.add(value);
      else if (EMAIL.test(value)) found.add(value.toLowerCase());
      else if (key && ID_KEYS.has(key) && value.length > 0 && value.length <= 128) found.add(value);
    } else if (typeof value === "number") {
      if (key && ID_KEYS.has(key) && Number.isSafeInteger(value)) found.add(String(value));
    } else if (Array.isArray(value)) {
      for (const item of value) visit(item, key, depth + 1);
    } else if (isObject(value)) {
      // for…in, not Object.entries: no [key, value] pair allocated per property on the claim path.
      for (const k in value) if (Object.hasOwn(value, k)) visit(value[k], k, depth + 1);
    }
  };
  visit(payload, undefined, 0);
  return [...found];
}
