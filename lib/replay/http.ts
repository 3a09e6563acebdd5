export interface HttpOptions {
  /** Tries per request, the first included. */
  attempts?: number;
  /** Wait before retry n (1-based) of a 5xx, a network error, or a 429 without Retry-After. */
  backoffMs?: (retry: number) => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** A Retry-After longer than this is cut to it. */
  maxRetryAfterMs?: number;
  timeoutMs?: number;
  signal?: AbortSignal;
  log?: (message: string) => void;
  /** Strings never to show in an error (API keys, tokens). */
  secrets?: readonly string[];
}

export class ReplayHttpError extends Error {
  override name = "ReplayHttpError";
  constructor(
    message: string,
    readonly status: number | undefined,
  ) {
    super(message);
  }
}

export function defaultBackoffMs(retry: number): number {
  const ceiling = Math.min(30_000, 500 * 2 ** (retry - 1));
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

export function redact(text: string, secrets: readonly string[] = []): string {
  let out = text;
  for (const s of secrets) if (s.length >= 4) out = out.replaceAll(s, "[redacted]");
  return out;
}

/** Seconds or an HTTP date; GitHub's secondary limits send x-ratelimit-reset (epoch seconds) instead. */
export function retryAfterMs(headers: Headers, now = Date.now()): number | undefined {
  const value = headers.get("retry-after");
  if (value !== null) {
    if (/^\d+(\.\d+)?$/.test(value.trim())) return Number(value) * 1000;
    const at = Date.parse(value);
    if (!Number.isNaN(at)) return Math.max(0, at - now);
  }
  const reset = headers.get("x-ratelimit-reset");
  if (reset !== null && headers.get("x-ratelimit-remaining") === "0" && /^\d+$/.test(reset))
    return Math.max(0, Number(reset) * 1000 - now);
  return undefined;
}

const describeUrl = (url: string) => {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
};

/**
 * One API request with the network's reality handled: 429 (and a rate-limited 403) waits for
 * Retry-After, 5xx and connection errors back off exponentially; other 4xx fail at once. Throws a
 * ReplayHttpError naming the request and the last answer, never the credentials.
 */
export async function fetchWithRetry(url: string, init: RequestInit, opts: HttpOptions = {}): Promise<Response> {
  const attempts = opts.attempts ?? 5;
  const sleep = opts.sleep ?? abortableSleep;
  const backoff = opts.backoffMs ?? defaultBackoffMs;
  const what = `${init.method ?? "GET"} ${describeUrl(url)}`;
  let last = "";
  let lastStatus: number | undefined;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    opts.signal?.throwIfAborted();
    let wait: number;
    try {
      const timeout = AbortSignal.timeout(opts.timeoutMs ?? 30_000);
      const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
      const res = await fetch(url, { ...init, signal });
      if (res.ok) return res;
      lastStatus = res.status;
      const body = redact((await res.text().catch(() => "")).slice(0, 300), opts.secrets);
      last = `HTTP ${res.status}${body ? `: ${body}` : ""}`;
      const limited = retryAfterMs(res.headers);
      if (res.status === 429 || (res.status === 403 && limited !== undefined))
        wait = Math.min(limited ?? backoff(attempt), opts.maxRetryAfterMs ?? 120_000);
      else if (res.status >= 500) wait = backoff(attempt);
      else throw new ReplayHttpError(`${what} refused: ${last}`, res.status);
    } catch (err) {
      if (err instanceof ReplayHttpError) throw err;
      opts.signal?.throwIfAborted();
      lastStatus = undefined;
      last = redact(
        err instanceof Error ? `${err.name}: ${(err.cause as Error | undefined)?.message ?? err.message}` : String(err),
        opts.secrets,
      );
      wait = backoff(attempt);
    }
    if (attempt < attempts) {
      opts.log?.(`${what}: ${last}; retry ${attempt} of ${attempts - 1} in ${Math.round(wait)} ms`);
      await sleep(wait, opts.signal);
    }
  }
  throw new ReplayHttpError(`${what} failed after ${attempts} attempts: ${last}`, lastStatus);
}

export async function getJson(
  url: string,
  headers: Record<string, string>,
  opts: HttpOptions,
): Promise<{ body: unknown; headers: Headers }> {
  const res = await fetchWithRetry(url, { headers: { accept: "application/json", ...headers } }, opts);
  const text = await res.text();
  try {
    return { body: JSON.parse(text) as unknown, headers: res.headers };
  } catch {
    throw new ReplayHttpError(
      `GET ${describeUrl(url)} answered ${res.status} with a body that is not JSON`,
      res.status,
    );
  }
}
