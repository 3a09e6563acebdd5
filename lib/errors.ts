import type { z } from "zod";

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

/** Input a person or a sender must fix: retrying the same input cannot succeed. */
export class ValidationError extends Error {
  override name = "ValidationError";
  constructor(
    message: string,
    /** The field (a JSON path or an argument name) that is wrong, for the message a person acts on. */
    readonly field?: string,
  ) {
    super(message);
  }
}

/** The input as `schema` parses it, or a ValidationError with the first issue's message and field. */
export function parseInput<T extends z.ZodType>(schema: T, input: unknown): z.output<T> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ValidationError(issue?.message ?? "invalid input", issue?.path.join(".") || undefined);
  }
  return parsed.data;
}

/** The service cannot answer now (database down or stalled, intake full); the same request may succeed later. */
export class UnavailableError extends Error {
  override name = "UnavailableError";
  constructor(
    message: string,
    /** Seconds a client should wait before retrying (the Retry-After header). */
    readonly retryAfterSeconds = 1,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The thing asked for does not exist (no such event, run or user). */
export class NotFoundError extends Error {
  override name = "NotFoundError";
}

/** The thing exists but is not in a state that allows this (a run already finished, the last admin). */
export class ConflictError extends Error {
  override name = "ConflictError";
}

/** The actor's role does not allow this; the message says what was needed. */
export class ForbiddenError extends Error {
  override name = "ForbiddenError";
}

/**
 * The one mapping from the domain's errors to an HTTP status, for route handlers and the receiver
 * (server actions return the same errors as values: app/_lib/action-result.ts). Anything else is a 500.
 */
export function httpStatusOf(err: unknown): number {
  if (err instanceof ValidationError || isDataError(err)) return 400;
  if (err instanceof ForbiddenError) return 403;
  if (err instanceof NotFoundError) return 404;
  if (err instanceof ConflictError) return 409;
  if (err instanceof UnavailableError || isTransientError(err)) return 503;
  return 500;
}

/** A message a person can act on for the domain's expected errors; undefined for anything unexpected. */
export function expectedErrorMessage(err: unknown): string | undefined {
  if (err instanceof ForbiddenError) return `Not allowed: ${err.message}`;
  if (
    err instanceof ValidationError ||
    err instanceof ConflictError ||
    err instanceof NotFoundError ||
    err instanceof UnavailableError
  )
    return err.message;
  return undefined;
}

/** `promise`, or an UnavailableError saying `what` did not happen within `ms`; the timer never outlives it. */
export function withinDeadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new UnavailableError(`${what} within ${ms} ms`)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

function codes(err: unknown): string[] {
  const out: string[] = [];
  for (let e = err, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string") out.push(code);
  }
  return out;
}

/** The SQLSTATE of a driver error, looking through drizzle's wrapping (`cause`); undefined if none. */
export function sqlState(err: unknown): string | undefined {
  return codes(err).find((c) => /^[0-9A-Z]{5}$/.test(c));
}

/**
 * Bad data, not an outage: class 22 (data exception: an escape jsonb refuses, a value out of range) and
 * class 54 (program limit: nesting past the stack depth, 54001). Retrying the same input will not help.
 */
export const isDataError = (err: unknown): boolean => {
  const state = sqlState(err);
  return state !== undefined && (state.startsWith("22") || state.startsWith("54"));
};

// Class 08 (connection), 40001/40P01 (serialization, deadlock), 53 (insufficient resources: too many
// connections), 55P03 (lock not available), 57014 (statement timeout), 57P01–57P05 (shutdown, starting up),
// 58000/58030 (system error, I/O error).
const TRANSIENT_STATE = /^(08...|40001|40P01|53...|55P03|57014|57P0[1-5]|58000|58030)$/;
// postgres.js reports lost connections with codes of its own; node with errno names.
const TRANSIENT_CODE = new Set([
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EAI_AGAIN",
]);

/** A failure that says nothing about the input: the same work may succeed when retried later. */
export function isTransientError(err: unknown): boolean {
  if (err instanceof UnavailableError) return true;
  return codes(err).some((c) => TRANSIENT_STATE.test(c) || TRANSIENT_CODE.has(c));
}

/** Serialization failure or deadlock: the transaction lost a race, and running it again is the fix. */
export const isRetryableConflict = (err: unknown): boolean => {
  const state = sqlState(err);
  return state === "40001" || state === "40P01";
};
