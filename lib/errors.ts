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

/** The SQLSTATE of a driver error, looking through drizzle's wrapping (`cause`); undefined if none. */
export function sqlState(err: unknown): string | undefined {
  for (let e = err, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) return code;
  }
  return undefined;
}

/** SQLSTATE class 22 is bad data (e.g. a JSON escape PostgreSQL refuses): retrying will not help. */
export const isDataError = (err: unknown): boolean => sqlState(err)?.startsWith("22") === true;
