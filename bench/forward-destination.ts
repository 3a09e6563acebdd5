/**
 * The team's endpoint for `npm run bench:forward`: a real node:http server on loopback that reads each request
 * whole, answers 200 after `delayMs`, and keeps, per request, when it arrived and its `webhook-id`. Bodies are not
 * kept but the first one, which the bench verifies as the team would.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface Arrival {
  /** Date.now() when the whole request had arrived (comparable with PostgreSQL's now() on this machine). */
  at: number;
  webhookId: string;
  /** The envelope's `id`, read only when `readIds` is set (the latency run maps arrivals to events by it). */
  eventId?: string;
}

export interface Destination {
  url: string;
  arrivals: Arrival[];
  first?: { headers: Record<string, string>; body: string };
  /** Resolves once `n` requests have arrived in all. */
  waitFor: (n: number, timeoutMs: number) => Promise<void>;
  reset: () => void;
  close: () => Promise<void>;
}

export async function startBenchDestination(opts: { delayMs: number; readIds?: boolean }): Promise<Destination> {
  const d: Destination = {
    url: "",
    arrivals: [],
    waitFor: (n, timeoutMs) =>
      new Promise((resolve, reject) => {
        const until = Date.now() + timeoutMs;
        const poll = () => {
          if (d.arrivals.length >= n) return resolve();
          if (Date.now() > until) return reject(new Error(`${d.arrivals.length} of ${n} requests arrived in time`));
          setTimeout(poll, 20);
        };
        poll();
      }),
    reset: () => {
      d.arrivals = [];
      d.first = undefined;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const at = Date.now();
      const body = Buffer.concat(chunks).toString("utf8");
      const webhookId = String(req.headers["webhook-id"] ?? "");
      const eventId = opts.readIds ? (JSON.parse(body) as { id: string }).id : undefined;
      d.arrivals.push({ at, webhookId, eventId });
      d.first ??= { headers: req.headers as Record<string, string>, body };
      setTimeout(() => {
        res.writeHead(200, { "content-type": "text/plain", "content-length": "2" });
        res.end("ok");
      }, opts.delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  d.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return d;
}
