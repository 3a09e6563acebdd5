import { isObject } from "@/lib/providers/types";
import { HandlerInputError } from "./types";

/** Small readers that fail with a message naming the missing path. */
export function objectAt(value: unknown, path: string): Record<string, unknown> {
  const keys = path === "" ? [] : path.split(".");
  const found = keys.reduce<unknown>((v, key) => (isObject(v) ? v[key] : undefined), value);
  if (!isObject(found))
    throw new HandlerInputError(path === "" ? "payload is not a JSON object" : `payload has no object at ${path}`);
  return found;
}

export function stringAt(obj: Record<string, unknown>, key: string, where: string): string {
  const v = obj[key];
  if (typeof v === "string" && v.length > 0) return v;
  if (typeof v === "number" && Number.isSafeInteger(v)) return String(v);
  throw new HandlerInputError(`payload has no ${where}.${key}`);
}

export function optionalString(obj: Record<string, unknown>, key: string): string | null {
  const v = obj[key];
  if (typeof v === "string") return v;
  if (typeof v === "number" && Number.isFinite(v)) return String(v);
  return null;
}

export function integerAt(obj: Record<string, unknown>, key: string, where: string): number {
  const v = obj[key];
  if (typeof v === "number" && Number.isSafeInteger(v)) return v;
  throw new HandlerInputError(`payload has no integer ${where}.${key}`);
}

/** The first item's price id: `items.data[0].price.id` (Stripe) or `items[0].price.id` (Paddle). */
export function firstPriceId(items: unknown, where: string): string {
  const list = Array.isArray(items) ? items : isObject(items) && Array.isArray(items.data) ? items.data : undefined;
  const first: unknown = list?.[0];
  const price = isObject(first) ? first.price : undefined;
  const id = isObject(price) ? price.id : undefined;
  if (typeof id !== "string" || id.length === 0)
    throw new HandlerInputError(`payload has no ${where}[0].price.id (a subscription needs at least one item)`);
  return id;
}

/** Field-by-field differences between the stored row (or nothing) and the new one. */
export function diff(
  before: Record<string, unknown> | undefined,
  after: Record<string, unknown>,
  fields: readonly string[],
) {
  const changes: Record<string, { from: unknown; to: unknown }> = {};
  for (const f of fields) {
    const from = before?.[f] ?? null;
    const to = after[f] ?? null;
    const same = from instanceof Date && to instanceof Date ? from.getTime() === to.getTime() : from === to;
    if (!same)
      changes[f] = {
        from: from instanceof Date ? from.toISOString() : from,
        to: to instanceof Date ? to.toISOString() : to,
      };
  }
  return changes;
}
