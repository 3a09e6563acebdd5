import type { IncomingMessage } from "node:http";
import type { BodyLease } from "./body-budget";

export class BodyTooLargeError extends Error {}

/** Reads at most `limit` bytes; throws BodyTooLargeError past it, without buffering the rest. */
export async function readBodyLimited(request: Request, limit: number): Promise<Buffer> {
  const declared = Number(request.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > limit) throw new BodyTooLargeError();
  if (!request.body) return Buffer.alloc(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw new BodyTooLargeError();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

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

export interface NodeBodyOptions {
  /** Reject with BodyTimeoutError unless the whole body has arrived by then. */
  timeoutMs?: number;
  /** Bytes are taken from it as they are read; the caller releases them once the request is answered. */
  lease?: BodyLease;
}

/**
 * node:http's counterpart of readBodyLimited, bounded in size, time and the process's budget for
 * unverified bytes. On any refusal it stops reading (the request is paused, not drained): the caller
 * answers and closes the connection, so a client that keeps sending costs nothing more.
 */
export function readNodeBodyLimited(req: IncomingMessage, limit: number, opts: NodeBodyOptions = {}): Promise<Buffer> {
  const declared = Number(req.headers["content-length"] ?? "NaN");
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(new BodyTooLargeError());
  if (Number.isFinite(declared) && opts.lease && !opts.lease.fits(declared))
    return Promise.reject(new BodyBudgetError());
  const { lease, timeoutMs } = opts;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (err?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
      req.off("close", onClose);
      if (!err) return resolve(Buffer.concat(chunks, size));
      // No more 'data' listener is not enough: a flowing stream keeps reading and dropping chunks.
      req.pause();
      chunks.length = 0;
      reject(err);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > limit) return finish(new BodyTooLargeError());
      if (lease && !lease.take(chunk.byteLength)) return finish(new BodyBudgetError());
      chunks.push(chunk);
    };
    const onEnd = () => finish();
    const onError = (err: NodeJS.ErrnoException) =>
      finish(err.code === "ECONNRESET" ? new BodyAbortedError(err.message) : err);
    const onClose = () => finish(new BodyAbortedError("the client closed the connection before the body was complete"));
    const timer =
      timeoutMs !== undefined
        ? setTimeout(() => finish(new BodyTimeoutError(timeoutMs)), Math.max(0, timeoutMs))
        : undefined;
    req.on("data", onData);
    req.once("end", onEnd);
    req.once("error", onError);
    req.once("close", onClose);
  });
}
