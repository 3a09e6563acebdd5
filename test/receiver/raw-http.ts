import { once } from "node:events";
import { connect, type Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";

/** A client on a raw socket: the request-target goes out exactly as written (fetch would resolve `..` first). */
export interface Raw {
  socket: Socket;
  text: () => string;
  status: () => number;
  /** Resolves with performance.now() when the server has closed the connection. */
  closed: Promise<number>;
  isClosed: () => boolean;
}

/** Opens a connection to 127.0.0.1:port; `clients` collects it so the test can destroy every one at the end. */
export async function openRaw(port: number, clients: Socket[]): Promise<Raw> {
  const socket = connect(port, "127.0.0.1");
  clients.push(socket);
  socket.on("error", () => {});
  let buf = "";
  let isClosed = false;
  socket.on("data", (c: Buffer) => (buf += c.toString("latin1")));
  const closed = new Promise<number>((resolve) => socket.once("close", () => resolve(performance.now())));
  void closed.then(() => (isClosed = true));
  await once(socket, "connect");
  return {
    socket,
    text: () => buf,
    status: () => Number(/^HTTP\/1\.1 (\d{3})/.exec(buf)?.[1] ?? 0),
    closed,
    isClosed: () => isClosed,
  };
}

/** Polls `check` every 20 ms until it holds or `ms` have passed; its last answer. */
export async function until(check: () => boolean, ms: number): Promise<boolean> {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    if (check()) return true;
    await sleep(20);
  }
  return check();
}

/** A POST's head to `target`, as written, with these header lines. */
export const postHead = (target: string, lines: string[]) =>
  `POST ${target} HTTP/1.1\r\nHost: ledger.test\r\n${lines.map((l) => `${l}\r\n`).join("")}\r\n`;

/** One chunk of a chunked body. */
export const chunk = (data: string | Buffer) =>
  Buffer.concat([Buffer.from(`${Buffer.byteLength(data).toString(16)}\r\n`), Buffer.from(data), Buffer.from("\r\n")]);

export const headerOf = (text: string, name: string) =>
  new RegExp(`^${name}: *(.*)$`, "im").exec(text.split("\r\n\r\n")[0] ?? "")?.[1]?.trim();

export const bodyOf = (text: string): unknown => JSON.parse(text.split("\r\n\r\n")[1] ?? "null");

/** Writes `bytes` every `everyMs` until the server hangs up or `stopAfterMs` have passed. */
export async function dribble(c: Raw, bytes: string, everyMs: number, stopAfterMs: number): Promise<void> {
  const end = performance.now() + stopAfterMs;
  while (performance.now() < end && !c.isClosed()) {
    c.socket.write(bytes);
    await sleep(everyMs);
  }
}
