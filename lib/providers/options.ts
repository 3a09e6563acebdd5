import { z } from "zod";
import { isObject } from "./types";

/** "meta.event_name", "items.0.id": at most 8 segments, so a lookup is bounded whatever the payload. */
const DOT_PATH = /^[A-Za-z0-9_$-]{1,64}(?:\.[A-Za-z0-9_$-]{1,64}){0,7}$/;
// RFC 9110 token characters: what a header name may hold.
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}$/;

/** Names that lead from a plain object to a prototype: never a payload field, so never a configured path. */
const PROTOTYPE_KEYS: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"]);
export const isPrototypeKey = (segment: string) => PROTOTYPE_KEYS.has(segment);
const PROTOTYPE_MESSAGE = "a path may not go through __proto__, constructor or prototype";

export const DotPath = z
  .string()
  .regex(DOT_PATH, "want a dot path like meta.event_name (at most 8 segments of letters, digits, _, $ or -)")
  .refine((path) => !path.split(".").some(isPrototypeKey), PROTOTYPE_MESSAGE);

/** Header names are case-insensitive: stored lower-cased, as Headers.get compares them. */
export const HeaderName = z
  .string()
  .regex(HEADER_NAME, "want an HTTP header name like X-Signature")
  .transform((name) => name.toLowerCase())
  // Headers are built as objects keyed by these names (a provider's sign): no name may reach a prototype.
  .refine((name) => !isPrototypeKey(name), "a header name may not be __proto__, constructor or prototype");

/** The value at a dot path: own properties only (never __proto__ or a prototype's), array items by index. */
export function valueAtPath(root: unknown, path: string): unknown {
  let current = root;
  for (const segment of path.split(".")) {
    if (isPrototypeKey(segment)) return undefined;
    if (Array.isArray(current)) {
      if (!/^\d{1,6}$/.test(segment)) return undefined;
      current = current[Number(segment)];
    } else if (isObject(current) && Object.hasOwn(current, segment)) {
      current = current[segment];
    } else return undefined;
  }
  return current;
}

/** A non-empty string, or a safe integer as text, at a dot path. */
export function textAtPath(root: unknown, path: string): string | undefined {
  const value = valueAtPath(root, path);
  if (typeof value === "string" && value.length > 0) return value;
  if (typeof value === "number" && Number.isSafeInteger(value)) return String(value);
  return undefined;
}

/**
 * Parses a kind's options once per options object. The receiver hands verify/describe the object that
 * parseOptions returned; anything else (raw config, undefined) is parsed here, so a provider never
 * reads unchecked options.
 */
export function optionsReader<T>(schema: z.ZodType<T>): { parse(raw: unknown): T; read(raw: unknown): T } {
  const seen = new WeakMap<object, T>();
  const parse = (raw: unknown): T => {
    const parsed = schema.parse(raw ?? {});
    if (isObject(parsed)) seen.set(parsed, parsed);
    return parsed;
  };
  return {
    parse,
    read(raw) {
      if (isObject(raw)) {
        const hit = seen.get(raw);
        if (hit !== undefined) return hit;
        const parsed = parse(raw);
        seen.set(raw, parsed);
        return parsed;
      }
      return parse(raw);
    },
  };
}

/** A zod error as one line naming each field: "eventId.header: want an HTTP header name". */
export function optionsError(err: unknown): string {
  if (!(err instanceof z.ZodError)) return err instanceof Error ? err.message : String(err);
  return err.issues.map((i) => (i.path.length ? `${i.path.join(".")}: ${i.message}` : i.message)).join("; ");
}
