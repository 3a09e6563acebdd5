import { describeError, sqlState, UnavailableError } from "@/lib/errors";

export const CENSOR = "[redacted]";

/**
 * Header names whose values are credentials: signatures (every provider's, `*-signature`, Shopify's HMAC),
 * cookies, authorization and the replay token. Matched by pattern, so a generic source's own header is
 * covered too.
 */
const SECRET_HEADER = /authorization|cookie|signature|hmac|token|secret|api-key|apikey|password/i;

export const isSecretHeader = (name: string): boolean => SECRET_HEADER.test(name);

/** Headers fit for a log line: credentials censored, values cut to 200 characters. */
export function safeHeaders(headers: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  const entries: Iterable<[string, unknown]> =
    headers instanceof Headers
      ? headers.entries()
      : headers && typeof headers === "object"
        ? Object.entries(headers as Record<string, unknown>)
        : [];
  for (const [name, value] of entries) {
    const text = Array.isArray(value) ? value.join(", ") : String(value);
    out[name.toLowerCase()] = isSecretHeader(name) ? CENSOR : text.slice(0, 200);
  }
  return out;
}

/**
 * Errors as a message, a code and (for the unexpected ones) a stack: never the error object's own fields,
 * which for a database error may hold the statement's parameters (a payload).
 */
export function safeError(err: unknown): Record<string, unknown> {
  if (!(err instanceof Error)) return { message: describeError(err) };
  // The innermost cause, as describeError reads it: a wrapper's message (and so its stack's first line)
  // may quote the failed statement and its parameters.
  let inner: Error = err;
  for (let depth = 0; depth < 3 && inner.cause instanceof Error; depth++) inner = inner.cause;
  const code = (inner as { code?: unknown }).code;
  // An outage (a deadline, a refused connection, a database's SQLSTATE) is said by its message and code;
  // its stack is the driver's.
  const expected = err instanceof UnavailableError || typeof code === "string" || sqlState(err) !== undefined;
  return {
    type: inner.name,
    message: describeError(err),
    ...(typeof code === "string" ? { code } : {}),
    ...(inner.stack && !expected ? { stack: inner.stack } : {}),
  };
}

/** Defence in depth for headers logged under another key (pino's redact, by exact path). */
const NAMED = [
  "authorization",
  "cookie",
  "set-cookie",
  "stripe-signature",
  "x-hub-signature",
  "x-hub-signature-256",
  "x-shopify-hmac-sha256",
  "shopify-hmac-sha256",
  "paddle-signature",
  "x-slack-signature",
  "webhook-signature",
  "x-replay-token",
];
export const REDACT_PATHS = ["headers", "req.headers", "request.headers", "res.headers"].flatMap((at) =>
  NAMED.map((name) => `${at}["${name}"]`),
);
