import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { guardedLookup, hostRefusal } from "./address";

export interface SendRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  allowPrivate: boolean;
  signal?: AbortSignal;
}

export interface SendResult {
  ok: boolean;
  status?: number;
  /** The first bytes of the answer, as text (attacker-controlled: rendered as text only). */
  excerpt?: string;
  error?: string;
  /** From a 429 or 503's Retry-After, in milliseconds. */
  retryAfterMs?: number;
  durationMs: number;
}

/** Bytes of an answer read at most; the rest is not waited for. */
const READ_MAX_BYTES = 16 * 1024;
/** What an attempt row keeps of the answer. */
const EXCERPT_CHARS = 1000;
/** A Retry-After further out than this is capped: the forward's own backoff takes over. */
const RETRY_AFTER_MAX_MS = 60 * 60 * 1000;

/** Retry-After as seconds or an HTTP date, in milliseconds from now; undefined when absent or unreadable. */
export function retryAfterMs(value: string | undefined, nowMs = Date.now()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  const ms = /^\d+$/.test(trimmed) ? Number(trimmed) * 1000 : Date.parse(trimmed) - nowMs;
  return Number.isFinite(ms) ? Math.min(Math.max(ms, 0), RETRY_AFTER_MAX_MS) : undefined;
}

/**
 * POST one forward and say how it was answered. Bounded: the whole exchange, connect included, ends within
 * `timeoutMs`; a redirect is a failure, never followed; the answer is read up to READ_MAX_BYTES; the address
 * connected to is checked (./address.ts). Never throws.
 */
export function sendForward(req: SendRequest): Promise<SendResult> {
  const started = performance.now();
  const took = () => Math.round(performance.now() - started);
  let url: URL;
  try {
    url = new URL(req.url);
  } catch {
    return Promise.resolve({ ok: false, error: "not a valid URL", durationMs: 0 });
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    return Promise.resolve({
      ok: false,
      error: `only http(s) URLs are forwarded to (got ${url.protocol})`,
      durationMs: 0,
    });
  const refused = hostRefusal(url, req.allowPrivate);
  if (refused) return Promise.resolve({ ok: false, error: refused, durationMs: 0 });
  const send = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise<SendResult>((resolve) => {
    let done = false;
    const finish = (r: Omit<SendResult, "durationMs">) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      req.signal?.removeEventListener("abort", onAbort);
      resolve({ ...r, durationMs: took() });
    };
    const http = send(url, {
      method: "POST",
      headers: {
        ...req.headers,
        "content-type": req.headers["content-type"] ?? "application/json",
        "content-length": String(Buffer.byteLength(req.body)),
        "user-agent": "webhook-ledger-forward",
      },
      agent: false,
      lookup: guardedLookup(req.allowPrivate),
    });
    const timer = setTimeout(() => {
      finish({ ok: false, error: `no answer within ${req.timeoutMs} ms` });
      http.destroy();
    }, req.timeoutMs);
    timer.unref?.();
    const onAbort = () => {
      finish({ ok: false, error: "stopped: shutting down" });
      http.destroy();
    };
    if (req.signal?.aborted) onAbort();
    req.signal?.addEventListener("abort", onAbort, { once: true });
    http.on("response", (res: IncomingMessage) => {
      const status = res.statusCode ?? 0;
      const chunks: Buffer[] = [];
      let size = 0;
      const answer = () => {
        const excerpt = Buffer.concat(chunks).toString("utf8").slice(0, EXCERPT_CHARS);
        const retryAfter =
          status === 429 || status === 503 ? retryAfterMs(String(res.headers["retry-after"] ?? "")) : undefined;
        if (status >= 200 && status < 300) finish({ ok: true, status, excerpt });
        else if (status >= 300 && status < 400)
          finish({ ok: false, status, excerpt, error: `answered ${status}: redirects are not followed` });
        else finish({ ok: false, status, excerpt, error: `answered ${status}`, retryAfterMs: retryAfter });
        http.destroy();
      };
      res.on("data", (chunk: Buffer) => {
        if (size >= READ_MAX_BYTES) return;
        chunks.push(chunk);
        size += chunk.length;
        if (size >= READ_MAX_BYTES) answer();
      });
      res.on("end", answer);
      res.on("error", answer);
    });
    http.on("error", (err: NodeJS.ErrnoException) => {
      finish({ ok: false, error: `${err.message}${err.code ? ` (${err.code})` : ""}`.slice(0, 500) });
    });
    http.end(req.body);
  });
}
