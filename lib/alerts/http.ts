import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";

export interface PostResult {
  ok: boolean;
  status?: number;
  /** Why it did not count as delivered, without the URL (it is a credential) or the answer's body. */
  error?: string;
  /** Retrying cannot help (the channel is no longer configured, the URL is unusable). */
  permanent?: boolean;
}

/** Error text that might carry the URL (or its path, a Slack token) has it cut out. */
function scrub(message: string, url: URL): string {
  let out = message;
  for (const part of [url.href, `${url.pathname}${url.search}`, url.pathname])
    if (part.length > 1) out = out.replaceAll(part, "/…");
  return out.slice(0, 300);
}

/**
 * POST a JSON body and report how the channel answered. Bounded: the whole exchange, connect included, ends
 * within `timeoutMs` (or when `signal` aborts). A redirect is a failure, never followed; the answer's body
 * is read and dropped, never kept or logged. Only http: and https: URLs.
 */
export function postJson(
  rawUrl: string,
  body: string,
  headers: Record<string, string>,
  opts: { timeoutMs: number; signal?: AbortSignal },
): Promise<PostResult> {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    return Promise.resolve({ ok: false, error: "not a valid URL", permanent: true });
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    return Promise.resolve({
      ok: false,
      error: `only http(s) URLs are sent to (got ${url.protocol})`,
      permanent: true,
    });
  const send = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise<PostResult>((resolve) => {
    let settled = false;
    const finish = (result: PostResult) => {
      if (settled) return;
      settled = true;
      opts.signal?.removeEventListener("abort", onAbort);
      resolve(result);
    };
    const req = send(url, {
      method: "POST",
      headers: {
        ...headers,
        "content-type": "application/json",
        "content-length": String(Buffer.byteLength(body)),
        "user-agent": "webhook-ledger-alerts",
      },
      agent: false,
    });
    // Also ends a socket still open after its answer (a body that never ends); cleared once it closes.
    const timer = setTimeout(() => {
      finish({ ok: false, error: `no answer within ${opts.timeoutMs} ms` });
      req.destroy();
    }, opts.timeoutMs);
    timer.unref?.();
    req.on("close", () => clearTimeout(timer));
    const onAbort = () => {
      finish({ ok: false, error: "stopped: shutting down" });
      req.destroy();
    };
    if (opts.signal?.aborted) onAbort();
    opts.signal?.addEventListener("abort", onAbort, { once: true });
    req.on("response", (res: IncomingMessage) => {
      const status = res.statusCode ?? 0;
      // Drained and dropped; the socket closes once it ends (agent: false) or the deadline destroys it.
      res.on("error", () => {});
      res.resume();
      if (status >= 200 && status < 300) finish({ ok: true, status });
      else if (status >= 300 && status < 400)
        finish({ ok: false, status, error: `answered ${status}: redirects are not followed` });
      else finish({ ok: false, status, error: `answered ${status}` });
    });
    req.on("error", (err: NodeJS.ErrnoException) => {
      const code = err.code ? ` (${err.code})` : "";
      finish({ ok: false, error: scrub(`${err.message}${code}`, url) });
    });
    req.end(body);
  });
}
