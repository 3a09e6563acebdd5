import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface Received {
  headers: IncomingMessage["headers"];
  body: string;
  at: number;
}

/** How the destination answers one request: a status (and headers, body), a delay, or a reset connection. */
export type Answer =
  | { status: number; headers?: Record<string, string>; body?: string; delayMs?: number }
  | { reset: true }
  | { hang: true };

/**
 * A team's endpoint on loopback, a real HTTP server: it records every request and answers as `answer` says
 * (by request number from 1), 200 by default.
 */
export async function startDestination(answer: (n: number, r: Received) => Answer = () => ({ status: 200 })): Promise<{
  url: string;
  received: Received[];
  close: () => Promise<void>;
  server: Server;
}> {
  const received: Received[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const r: Received = { headers: req.headers, body: Buffer.concat(chunks).toString("utf8"), at: Date.now() };
      received.push(r);
      const a = answer(received.length, r);
      if ("reset" in a) return req.socket.destroy();
      if ("hang" in a) return;
      setTimeout(() => {
        res.writeHead(a.status, a.headers);
        res.end(a.body ?? "ok");
      }, a.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
