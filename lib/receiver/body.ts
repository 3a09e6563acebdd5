import type { IncomingMessage } from "node:http";
import type { RefusalReason } from "@/db/schema/sources";
import type { BodyBudget } from "./body-budget";

export class BodyTooLargeError extends Error {}

/** The body did not arrive within WEBHOOK_BODY_TIMEOUT_MS (a slow-body client holding the connection). */
export class BodyTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`body not received within ${timeoutMs} ms`);
  }
}

/** Reading it would pass WEBHOOK_UNVERIFIED_MAX_BYTES, the bytes held for every unverified body at once. */
export class BodyBudgetError extends Error {}

/** The client went away before the body was complete. */
export class BodyAbortedError extends Error {}

/** Told of a body as it arrives. */
export interface BodySink {
  data(chunk: Uint8Array): void;
  end(): void;
  fail(err: Error): void;
}

/** A request's body as an HTTP layer delivers it: node:http's IncomingMessage or a Fetch API stream. */
export interface BodySource {
  /**
   * Hands each chunk to the sink as it arrives, never before it has returned; the function it returns
   * stops reading and leaves the connection open.
   */
  start(sink: BodySink): () => void;
  /** Whether the whole body has arrived: when not, the answer closes the connection rather than drain it. */
  readonly complete: boolean;
}

export interface BodyBounds {
  /** WEBHOOK_MAX_BYTES: past it, BodyTooLargeError. */
  limit: number;
  /** The Content-Length, when one was sent: refused before any of it is read if it could never fit. */
  declared?: number;
  /** The whole body must have arrived by then, else BodyTimeoutError. */
  timeoutMs: number;
  /** Bytes are taken from it as they arrive and given back once the body is read or refused. */
  budget: BodyBudget;
}

/**
 * Every host's one body reader, bounded in size, time and the process's budget for unverified bytes.
 * The bytes go back to the budget as soon as it settles: the signature is checked right after, without
 * waiting, and a verified body waiting for its claim is bounded by WEBHOOK_QUEUE_MAX_BYTES. On a refusal
 * it stops reading, so the host answers and closes the connection and a client that keeps sending costs nothing.
 */
export function readBody(source: BodySource, bounds: BodyBounds): Promise<Buffer> {
  const { limit, declared, timeoutMs, budget } = bounds;
  if (declared !== undefined && declared > limit) return Promise.reject(new BodyTooLargeError());
  const lease = budget.open();
  if (declared !== undefined && !lease.fits(declared)) return Promise.reject(new BodyBudgetError());
  return new Promise((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    let size = 0;
    let settled = false;
    const finish = (err?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      stop();
      lease.release();
      if (!err) return resolve(Buffer.concat(chunks, size));
      chunks.length = 0;
      reject(err);
    };
    const timer = setTimeout(() => finish(new BodyTimeoutError(timeoutMs)), Math.max(0, timeoutMs));
    const stop = source.start({
      data(chunk) {
        if (settled) return;
        size += chunk.byteLength;
        if (size > limit) return finish(new BodyTooLargeError());
        if (!lease.take(chunk.byteLength)) return finish(new BodyBudgetError());
        chunks.push(chunk);
      },
      end: () => finish(),
      fail: (err) => finish(err),
    });
  });
}

/** The answer to a body that could not be read, and the refusal it is recorded as; undefined for any other error. */
export function bodyRefusal(
  err: unknown,
  bounds: { limit: number; timeoutMs: number },
): { status: number; error: string; reason: RefusalReason; headers?: Record<string, string> } | undefined {
  if (err instanceof BodyTooLargeError)
    return { status: 413, error: `body exceeds ${bounds.limit} bytes`, reason: "too_large" };
  if (err instanceof BodyTimeoutError)
    return { status: 408, error: `the body did not arrive within ${bounds.timeoutMs} ms`, reason: "bad_body" };
  if (err instanceof BodyBudgetError)
    return {
      status: 503,
      error: "too many deliveries are being received at once, retry later",
      reason: "bad_body",
      headers: { "retry-after": "1" },
    };
  if (err instanceof BodyAbortedError)
    return { status: 400, error: "the connection closed before the body was complete", reason: "bad_body" };
  return undefined;
}

/** node:http's request body. On a stop it is paused, never drained or destroyed: its answer is still to be written. */
export function nodeBody(req: IncomingMessage): BodySource {
  return {
    get complete() {
      return req.complete;
    },
    start(sink) {
      const onData = (chunk: Buffer) => sink.data(chunk);
      const onEnd = () => sink.end();
      const onError = (err: NodeJS.ErrnoException) =>
        sink.fail(err.code === "ECONNRESET" ? new BodyAbortedError(err.message) : err);
      const onClose = () =>
        sink.fail(new BodyAbortedError("the client closed the connection before the body was complete"));
      req.on("data", onData);
      req.once("end", onEnd);
      req.once("error", onError);
      req.once("close", onClose);
      return () => {
        req.off("data", onData);
        req.off("end", onEnd);
        req.off("error", onError);
        req.off("close", onClose);
        // No more 'data' listener is not enough: a flowing stream keeps reading and dropping chunks.
        if (!req.complete) req.pause();
      };
    },
  };
}

/**
 * A Fetch API request body (Next's route handler). On a stop its reader is released, not cancelled: Next
 * streams the request from node:http, and cancelling that stream destroys the socket the answer goes out on.
 */
export function webBody(body: ReadableStream<Uint8Array> | null): BodySource {
  let complete = body === null;
  return {
    get complete() {
      return complete;
    },
    start(sink) {
      if (!body) {
        queueMicrotask(() => sink.end());
        return () => {};
      }
      const reader = body.getReader();
      let stopped = false;
      void (async () => {
        for (;;) {
          let next: ReadableStreamReadResult<Uint8Array>;
          try {
            next = await reader.read();
          } catch (err) {
            if (!stopped) sink.fail(new BodyAbortedError(err instanceof Error ? err.message : String(err)));
            return;
          }
          if (stopped) return;
          if (next.done) {
            complete = true;
            return sink.end();
          }
          sink.data(next.value);
        }
      })();
      return () => {
        if (stopped) return;
        stopped = true;
        reader.releaseLock();
      };
    },
  };
}
