/**
 * An open-loop load at a steady rate, for latency below saturation. autocannon's own rate limit sends each
 * connection's quota in a burst at the top of every second (and corrects for coordinated omission against
 * a 1 ms interval), so its "paced" figures describe a saturated burst. Here request i is due at t0 + i/rate;
 * its latency runs from when it was due, so a request held back by busy sockets counts its wait.
 *
 * Raw keep-alive sockets with pre-built requests, not node:http's client: the generator shares the cores
 * with the server, and node:http cost it about three times autocannon's CPU per request.
 */
import { connect, type Socket } from "node:net";

export interface PacedDelivery {
  headers: Record<string, string>;
  body: Buffer;
}
export interface PacedResult {
  duration: number;
  errors: number;
  non2xx: number;
  latency: { p50: number; p99: number };
  requests: { total: number };
}

interface InFlight {
  d: PacedDelivery;
  due: number;
}

const CRLF2 = Buffer.from("\r\n\r\n");

function requestBytes(port: number, path: string, d: PacedDelivery): Buffer {
  const lines = [`POST ${path} HTTP/1.1`, `host: 127.0.0.1:${port}`, `content-length: ${d.body.length}`];
  for (const [k, v] of Object.entries(d.headers)) if (k.toLowerCase() !== "content-length") lines.push(`${k}: ${v}`);
  return Buffer.concat([Buffer.from(`${lines.join("\r\n")}\r\n\r\n`), d.body]);
}

/** One complete response at the front of buf: [status, body, bytes used], or undefined if more is to come. */
function parseResponse(buf: Buffer): [number, string, number] | undefined {
  const end = buf.indexOf(CRLF2);
  if (end < 0) return undefined;
  const head = buf.subarray(0, end).toString("latin1");
  const status = Number(head.slice(9, 12));
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
  if (!length) throw new Error("paced load needs responses with a content-length");
  const total = end + 4 + Number(length[1]);
  if (buf.length < total) return undefined;
  return [status, buf.subarray(end + 4, total).toString("utf8"), total];
}

export async function pacedLoad(opts: {
  port: number;
  path: string;
  rate: number;
  duration: number;
  connections: number;
  next: () => PacedDelivery;
  onResponse: (status: number, body: string, d: PacedDelivery) => void;
}): Promise<PacedResult> {
  const { port, path, rate, duration, connections, next, onResponse } = opts;
  const total = Math.round(rate * duration);
  const latencies: number[] = [];
  let [non2xx, settled, sent] = [0, 0, 0];
  const idle: Socket[] = [];
  const waiting: number[] = []; // due times of requests with no free socket yet
  const current = new Map<Socket, InFlight>();
  const sockets: Socket[] = [];
  let done!: () => void;
  let fail!: (err: Error) => void;
  const finished = new Promise<void>((resolve, reject) => ([done, fail] = [resolve, reject]));
  const settle = () => void (++settled === total && done());

  const send = (socket: Socket, due: number) => {
    const d = next();
    current.set(socket, { d, due });
    socket.write(requestBytes(port, path, d));
  };
  const free = (socket: Socket) => {
    const due = waiting.shift();
    if (due === undefined) idle.push(socket);
    else send(socket, due);
  };

  await Promise.all(
    Array.from(
      { length: connections },
      () =>
        new Promise<void>((resolve, reject) => {
          const socket = connect({ port, host: "127.0.0.1", noDelay: true }, () => resolve());
          let buf: Buffer = Buffer.alloc(0);
          socket.on("data", (chunk: Buffer) => {
            buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
            const parsed = parseResponse(buf);
            if (!parsed) return;
            const [status, body, used] = parsed;
            buf = buf.subarray(used);
            const inflight = current.get(socket)!;
            current.delete(socket);
            if (status >= 200 && status < 300) latencies.push(performance.now() - inflight.due);
            else non2xx++;
            onResponse(status, body, inflight.d);
            settle();
            free(socket);
          });
          // A socket lost mid-run fails the run: a figure with a hole in it would mislead.
          socket.on("error", (err) => (reject(err), fail(err)));
          socket.on(
            "close",
            () => settled < total && fail(new Error("the server closed a connection during the paced load")),
          );
          sockets.push(socket);
          idle.push(socket);
        }),
    ),
  );

  const t0 = performance.now();
  const tick = () => {
    const now = performance.now();
    for (; sent < total && t0 + (sent * 1000) / rate <= now; sent++) {
      const due = t0 + (sent * 1000) / rate;
      // First-in first-out: every connection carries requests in turn. A stack would leave the bottom sockets
      // silent below saturation, and node answers a connection silent past headersTimeout with a bare 408.
      const socket = idle.shift();
      if (socket) send(socket, due);
      else waiting.push(due);
    }
    if (sent < total) setTimeout(tick, 1);
  };
  tick();
  try {
    await finished;
  } finally {
    for (const s of sockets) s.removeAllListeners("close").destroy();
  }
  const elapsed = (performance.now() - t0) / 1000;
  latencies.sort((a, b) => a - b);
  const pct = (p: number) =>
    Math.round(latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))] ?? 0);
  return { duration: elapsed, errors: 0, non2xx, latency: { p50: pct(0.5), p99: pct(0.99) }, requests: { total } };
}
