import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Readable } from "node:stream";
import { receiveWebhook, type ReceiverDeps } from "@/lib/receiver/receive";

/** The [source] route's pattern, as Next's route matcher builds it for app/api/webhooks/[source]/route.ts. */
const ROUTE = /^\/api\/webhooks\/([^/]+?)(?:\/)?$/;

/**
 * What `next dev` and a bare `next start` run for a webhook, without a build: the function the route handler
 * calls (app/api/webhooks/[source]/route.ts), behind a real node:http server that hands it a request as Next
 * does: the target resolved by WHATWG URL (Next's parseUrl), the [source] param decoded (its route matcher),
 * the IncomingMessage itself as the Request's body (NextRequestAdapter.fromNodeNextRequest), and the
 * Response's status, headers and body written back (sendResponse). Next answers `//`, `\` and a trailing
 * slash with a 308 to the clean path; this host routes them at once, so more spellings reach the handler here.
 */
export async function startRouteHost(
  deps: ReceiverDeps,
): Promise<{ url: string; port: number; close: () => Promise<void> }> {
  const serve = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(`http://n${(req.url ?? "/").replace(/[\\/]+/g, "/")}`);
    const match = ROUTE.exec(url.pathname);
    if (!match) return void res.writeHead(404).end();
    let source: string;
    try {
      source = decodeURIComponent(match[1]!);
    } catch {
      return void res.writeHead(400).end();
    }
    const headers = new Headers();
    for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
    // Next hands undici the IncomingMessage itself (an async iterable); typed here as the stream it becomes.
    const stream = req as Readable as unknown as ReadableStream<Uint8Array>;
    const request = new Request(url, { method: req.method, headers, body: stream, duplex: "half" } as RequestInit);
    const { response } = await receiveWebhook(source, request, deps);
    const out: Record<string, string> = {};
    response.headers.forEach((value, name) => (out[name] = value));
    const body = Buffer.from(await response.arrayBuffer());
    res.writeHead(response.status, { ...out, "content-length": body.length });
    res.end(body);
  };
  const server: Server = createServer((req, res) => {
    serve(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
