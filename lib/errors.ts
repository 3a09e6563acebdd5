/**
 * A loggable one-line reason. drizzle wraps driver errors as "Failed query: <sql> params: <values>";
 * the params can hold payloads, so only the innermost driver message is kept.
 */
export function describeError(err: unknown): string {
  let e: unknown = err;
  for (let depth = 0; depth < 3 && e instanceof Error && e.cause instanceof Error; depth++) e = e.cause;
  if (e instanceof Error) {
    const code = (e as { code?: unknown }).code;
    return typeof code === "string" ? `${e.message} (${code})` : e.message;
  }
  return String(e);
}
