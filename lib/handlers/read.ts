import { isObject } from "@/lib/providers/types";
import { HandlerInputError, type InputProblem, type PayloadPath } from "./types";

/**
 * Where an object is: a dotted path from the payload's root ("data.object"), or a name and the path it stands
 * for (Shopify's order is the root: { name: "order", path: [] }; the provider API's answer is not in the
 * payload: path null).
 */
export type Where = string | { name: string; path: PayloadPath | null };

const nameOf = (w: Where) => (typeof w === "string" ? w : w.name);
const pathOf = (w: Where): PayloadPath | null => (typeof w === "string" ? (w === "" ? [] : w.split(".")) : w.path);

/** A place below `where`, named as the message says it and pathed as the payload has it. */
export function below(where: Where, ...keys: (string | number)[]): Where {
  const path = pathOf(where);
  const name = keys.reduce<string>((n, k) => (typeof k === "number" ? `${n}[${k}]` : `${n}.${k}`), nameOf(where));
  return { name, path: path && [...path, ...keys] };
}

/** Fails with a message for a person and the path and problem for the console. */
export function inputError(message: string, where: Where, problem: InputProblem): HandlerInputError {
  return new HandlerInputError(message, { path: pathOf(where), problem });
}

/** Small readers that fail with a message naming the missing path. */
export function objectAt(value: unknown, path: string): Record<string, unknown> {
  const keys = path === "" ? [] : path.split(".");
  const found = keys.reduce<unknown>((v, key) => (isObject(v) ? v[key] : undefined), value);
  if (!isObject(found))
    throw inputError(
      path === "" ? "payload is not a JSON object" : `payload has no object at ${path}`,
      path,
      found === undefined ? "missing" : "not-an-object",
    );
  return found;
}

export function stringAt(obj: Record<string, unknown>, key: string, where: Where): string {
  const v = obj[key];
  if (typeof v === "string" && v.length > 0) return v;
  if (typeof v === "number" && Number.isSafeInteger(v)) return String(v);
  throw inputError(`payload has no ${nameOf(where)}.${key}`, below(where, key), "missing");
}

export function optionalString(obj: Record<string, unknown>, key: string): string | null {
  const v = obj[key];
  if (typeof v === "string") return v;
  if (typeof v === "number" && Number.isFinite(v)) return String(v);
  return null;
}

export function integerAt(obj: Record<string, unknown>, key: string, where: Where): number {
  const v = obj[key];
  if (typeof v === "number" && Number.isSafeInteger(v)) return v;
  throw inputError(
    `payload has no integer ${nameOf(where)}.${key}`,
    below(where, key),
    v === undefined ? "missing" : "not-an-integer",
  );
}

/** The first item's price id: `items.data[0].price.id` (Stripe) or `items[0].price.id` (Paddle). */
export function firstPriceId(items: unknown, where: Where): string {
  const list = Array.isArray(items) ? items : isObject(items) && Array.isArray(items.data) ? items.data : undefined;
  const first: unknown = list?.[0];
  const price = isObject(first) ? first.price : undefined;
  const id = isObject(price) ? price.id : undefined;
  if (typeof id !== "string" || id.length === 0)
    throw inputError(
      `payload has no ${nameOf(where)}[0].price.id (a subscription needs at least one item)`,
      below(where, 0, "price", "id"),
      "missing",
    );
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
