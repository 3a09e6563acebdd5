import { once } from "node:events";
import type { Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLifecycle, type Lifecycle } from "@/lib/lifecycle";
import { createBodyBudget } from "@/lib/receiver/body-budget";
import { SERVER_TIMEOUTS, startLedgerServer } from "@/lib/server/http";
import { setupTestDb } from "../db";
import { counts, depsFor } from "../receiver/harness";
import { chunk, dribble, headerOf, openRaw, postHead, until, type Raw } from "../receiver/raw-http";

// The edge `npm start` runs (lib/server/http.ts → lib/receiver/node.ts), attacked over raw loopback sockets.
const { db } = setupTestDb();
const MAX_BYTES = 64 * 1024;
const BUDGET = 256 * 1024;
const BODY_TIMEOUT_MS = 1000;
const budget = createBodyBudget(BUDGET);
let lifecycle: Lifecycle;
let server: Server;
let port: number;
const serverSockets: Socket[] = [];
const clients: Socket[] = [];

beforeAll(async () => {
  lifecycle = createLifecycle({ timeoutMs: 5000 });
  const started = await startLedgerServer({
    host: "127.0.0.1",
    port: 0,
    lifecycle,
    log: () => {},
    deps: { ...depsFor(db, { maxBytes: MAX_BYTES }), limits: { bodyTimeoutMs: BODY_TIMEOUT_MS, budget } },
    timeouts: { headersMs: 1000, requestMs: 5000, checkIntervalMs: 200 },
  });
  server = started.server;
  port = (server.address() as AddressInfo).port;
  server.on("connection", (s: Socket) => serverSockets.push(s));
});
afterAll(async () => {
  for (const c of clients) c.destroy();
  await lifecycle.stop("test over");
});

const open = () => openRaw(port, clients);
const head = (lines: string[]) => postHead("/api/webhooks/stripe", ["Stripe-Signature: t=1,v1=00", ...lines]);

describe("bodies past WEBHOOK_MAX_BYTES", () => {
  it("[security] a chunked upload that keeps going after its 413 is cut off: Connection: close, socket closed, little read", async () => {
    const c = await open();
    c.socket.write(head(["Transfer-Encoding: chunked"]));
    const frame = chunk(Buffer.alloc(64 * 1024, 97));
    const stopAt = performance.now() + 3000;
    // As fast as the socket takes it, for 3 s or until the server hangs up.
    while (performance.now() < stopAt && !c.isClosed()) {
      if (!c.socket.write(frame)) await Promise.race([once(c.socket, "drain").catch(() => {}), c.closed, sleep(50)]);
    }
    expect(c.status()).toBe(413);
    expect(headerOf(c.text(), "connection")).toBe("close");
    expect(headerOf(c.text(), "x-content-type-options")).toBe("nosniff");
    expect(await Promise.race([c.closed.then(() => true), sleep(2000).then(() => false)])).toBe(true);
    const read = Math.max(...serverSockets.map((s) => s.bytesRead));
    // The old adapter drained it for keep-alive: gigabytes in these 3 s.
    expect(read).toBeLessThan(8 * 1024 * 1024);
    expect(await counts(db)).toEqual({ events: 0, deliveries: 0 });
  });

  it("[security] a declared Content-Length past the limit answers 413 at once and closes, before any of it is read", async () => {
    const c = await open();
    // The head alone, and no byte of the body ever: had the server waited for (or read) any of it, no answer could
    // come, so an answer at all is the proof; the bound is a hang guard.
    c.socket.write(head([`Content-Length: ${50 * 1024 * 1024}`]));
    expect(await until(() => c.status() === 413, 10_000)).toBe(true);
    expect(budget.held).toBe(0);
    expect(headerOf(c.text(), "connection")).toBe("close");
    expect(await Promise.race([c.closed.then(() => true), sleep(2000).then(() => false)])).toBe(true);
  });
});

describe("slow clients", () => {
  it("[security] a Content-Length body sent a byte at a time answers 408 within WEBHOOK_BODY_TIMEOUT_MS and closes", async () => {
    const c = await open();
    const started = performance.now();
    c.socket.write(head(["Content-Length: 1000", "Content-Type: application/json"]) + '{"id":"evt_');
    await dribble(c, "a", 250, 4000);
    expect(c.status()).toBe(408);
    expect(JSON.parse(c.text().split("\r\n\r\n")[1] ?? "")).toEqual({
      error: `the body did not arrive within ${BODY_TIMEOUT_MS} ms`,
    });
    expect(headerOf(c.text(), "connection")).toBe("close");
    expect((await c.closed) - started).toBeLessThan(BODY_TIMEOUT_MS + 1500);
    expect(budget.held).toBe(0);
  });

  it("[security] a chunked body sent a chunk at a time answers 408 too", async () => {
    const c = await open();
    const started = performance.now();
    c.socket.write(head(["Transfer-Encoding: chunked"]));
    await dribble(c, chunk("a").toString("latin1"), 250, 4000);
    expect(c.status()).toBe(408);
    expect((await c.closed) - started).toBeLessThan(BODY_TIMEOUT_MS + 1500);
  });

  it("[security] headers sent a line at a time are cut off by server.headersTimeout", async () => {
    const c = await open();
    const started = performance.now();
    c.socket.write("POST /api/webhooks/stripe HTTP/1.1\r\nHost: ledger.test\r\n");
    await dribble(c, "X-Slow: 1\r\n", 250, 5000);
    expect(c.isClosed()).toBe(true);
    // headersTimeout 1000 ms here, checked every 200 ms.
    expect((await c.closed) - started).toBeLessThan(3000);
    expect(c.status() === 408 || c.text() === "").toBe(true);
  });

  it("[security] npm start's server bounds headers at 10 s and a whole request at 30 s", async () => {
    const own = createLifecycle({ timeoutMs: 2000 });
    const { server: s } = await startLedgerServer({
      host: "127.0.0.1",
      port: 0,
      lifecycle: own,
      log: () => {},
      deps: depsFor(db),
    });
    expect([s.headersTimeout, s.requestTimeout]).toEqual([SERVER_TIMEOUTS.headersMs, SERVER_TIMEOUTS.requestMs]);
    expect(SERVER_TIMEOUTS.headersMs).toBe(10_000);
    expect(SERVER_TIMEOUTS.requestMs).toBe(30_000);
    await own.stop("done");
  });
});

describe("bytes held by unverified bodies", () => {
  // A server of its own whose body timeout cannot fire while the test opens its connections, however loaded the
  // machine: the refusals are then the budget's alone. (The 408 that releases a slow body's bytes is tested above.)
  const held = createBodyBudget(BUDGET);
  let own: Lifecycle;
  let ownPort: number;
  beforeAll(async () => {
    own = createLifecycle({ timeoutMs: 5000 });
    const started = await startLedgerServer({
      host: "127.0.0.1",
      port: 0,
      lifecycle: own,
      log: () => {},
      deps: { ...depsFor(db, { maxBytes: MAX_BYTES }), limits: { bodyTimeoutMs: 120_000, budget: held } },
      timeouts: { headersMs: 1000, requestMs: 120_000, checkIntervalMs: 200 },
    });
    ownPort = (started.server.address() as AddressInfo).port;
  });
  afterAll(() => own.stop("test over"));
  const openOwn = () => openRaw(ownPort, clients);

  it("[security] bodies held past WEBHOOK_UNVERIFIED_MAX_BYTES get 503 + Retry-After; all bytes are released", async () => {
    const waiting: Raw[] = [];
    const body = Buffer.alloc(50 * 1024, 97);
    for (let i = 0; i < 16; i++) {
      const c = await openOwn();
      // Declared just under WEBHOOK_MAX_BYTES, 50 KB of it sent, the rest never.
      c.socket.write(head([`Content-Length: ${MAX_BYTES - 10}`]));
      c.socket.write(body);
      const before = held.held;
      await until(() => held.held >= before + body.length || c.status() !== 0, 30_000);
      waiting.push(c);
    }
    // One more without a declared length: refused as its chunks are read.
    const chunked = await openOwn();
    chunked.socket.write(head(["Transfer-Encoding: chunked"]));
    chunked.socket.write(Buffer.concat([chunk(body), chunk(body)]));
    await until(() => chunked.status() !== 0, 30_000);

    // As many 50 KB bodies as fit in 256 KB wait; every later one, and the chunked one, is refused.
    const fit = waiting.filter((c) => c.status() === 0).length;
    expect(fit * body.length).toBeLessThanOrEqual(BUDGET);
    expect((fit + 2) * body.length).toBeGreaterThan(BUDGET);
    expect(held.held).toBe(fit * body.length);
    const refused = [...waiting, chunked].filter((c) => c.status() === 503);
    expect(refused.length).toBe(16 - fit + 1);
    for (const c of refused) {
      expect(headerOf(c.text(), "retry-after")).toBe("1");
      expect(headerOf(c.text(), "connection")).toBe("close");
    }
    expect(chunked.status()).toBe(503);
    expect(held.peak).toBeLessThanOrEqual(BUDGET);
    // The five still waiting for the rest of their bodies let go of their bytes when their clients go.
    for (const c of waiting) if (c.status() === 0) c.socket.destroy();
    expect(await until(() => held.held === 0, 30_000)).toBe(true);
  });

  it("[security] a complete body that fails verification is answered on a kept-alive connection and releases its bytes", async () => {
    const c = await openOwn();
    const payload = JSON.stringify({ id: "evt_edge", type: "x" });
    c.socket.write(head([`Content-Length: ${payload.length}`]) + payload);
    expect(await until(() => c.status() === 401, 30_000)).toBe(true);
    expect(headerOf(c.text(), "connection")).not.toBe("close");
    expect(held.held).toBe(0);
    c.socket.destroy();
  });
});

describe("the webhook path", () => {
  async function post(path: string) {
    const c = await open();
    c.socket.write(`POST ${path} HTTP/1.1\r\nHost: ledger.test\r\nContent-Length: 2\r\n\r\n{}`);
    await until(() => c.text().includes("\r\n\r\n") && c.text().endsWith("}"), 2000);
    c.socket.destroy();
    return {
      status: c.status(),
      body: JSON.parse(c.text().split("\r\n\r\n")[1] ?? "null") as { error: string },
      text: c.text(),
    };
  }

  it("[security] a NUL, an invalid UTF-8 escape or a 400-character source answers 400 with a clear message, never 500", async () => {
    const nul = await post("/api/webhooks/%00");
    expect([nul.status, nul.body.error]).toEqual([400, "the source in the path contains U+0000 (NUL)"]);
    const ff = await post("/api/webhooks/%ff");
    expect([ff.status, ff.body.error]).toEqual([400, "the source in the path is not valid percent-encoded UTF-8"]);
    const long = await post(`/api/webhooks/${"a".repeat(400)}`);
    expect([long.status, long.body.error]).toEqual([400, "the source in the path is longer than 64 characters"]);
    const unknown = await post("/api/webhooks/nope");
    expect(unknown.status).toBe(404);
    for (const r of [nul, ff, long, unknown]) {
      expect(headerOf(r.text, "x-content-type-options")).toBe("nosniff");
      expect(headerOf(r.text, "cache-control")).toBe("no-store");
    }
  });
});
