import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { createServer, type AddressInfo, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { Redis } from "ioredis";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import {
  connectDedupCache,
  dedupCacheKey,
  noDedupCache,
  type DedupCache,
  type DedupCacheOptions,
} from "@/lib/intake/dedup-cache";

/** The shared Redis: never flushed; every test writes under its own prefix and deletes only that. */
const SHARED_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
/** What "within the budget" means for a caller: far above the 5 ms budget, far below a claim timeout. */
const CALL_LIMIT_MS = 500; // generous: a loaded 2-core test machine stalls for tens of ms
/** For the tests of what a marker means: a budget a loaded test machine cannot miss, so "false" is the key's answer. */
const PATIENT_MS = 2000;

const caches: DedupCache[] = [];
const prefixes: string[] = [];
const children = new Set<ChildProcess>();
const servers: Server[] = [];

function open(opts: Partial<DedupCacheOptions> = {}) {
  const keyPrefix = `wl:test:dedup:${randomBytes(6).toString("hex")}:`;
  prefixes.push(keyPrefix);
  const logs: string[] = [];
  const cache = connectDedupCache({ url: SHARED_URL, ttlSeconds: 60, keyPrefix, log: (m) => logs.push(m), ...opts });
  caches.push(cache);
  return { cache, keyPrefix, logs };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Until a marker written now is read back: the connection is up and both commands go through. */
async function untilWorking(cache: DedupCache, withinMs = 10_000, key?: [source: string, eventId: string]) {
  const [source, eventId] = key ?? ["probe", `probe_${randomBytes(4).toString("hex")}`];
  const deadline = Date.now() + withinMs;
  while (Date.now() < deadline) {
    cache.mark(source, eventId);
    if (await cache.seen(source, eventId)) return;
    await sleep(50);
  }
  throw new Error(`the dedup cache did not work within ${withinMs} ms`);
}

/** Each call is timed; none may reject or take longer than the limit. */
async function timedSeen(cache: DedupCache, source: string, eventId: string) {
  const started = performance.now();
  const answer = await cache.seen(source, eventId);
  const ms = performance.now() - started;
  expect(ms).toBeLessThan(CALL_LIMIT_MS);
  return { answer, ms };
}

async function freePort() {
  const srv = createServer();
  srv.listen(0, "127.0.0.1");
  await once(srv, "listening");
  const { port } = srv.address() as AddressInfo;
  await new Promise((r) => srv.close(r));
  return port;
}

async function startRedis(port: number) {
  const child = spawn(
    "redis-server",
    [
      "--port",
      String(port),
      "--bind",
      "127.0.0.1",
      "--save",
      "",
      "--appendonly",
      "no",
      "--daemonize",
      "no",
      "--dir",
      tmpdir(),
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  children.add(child);
  child.once("exit", () => children.delete(child));
  await new Promise<void>((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`redis-server on ${port} did not start: ${out}`)), 10_000);
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes("Ready to accept connections")) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server on ${port} exited with ${code}: ${out}`));
    });
  });
  return child;
}

async function kill(child: ChildProcess) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, "exit");
  child.kill("SIGKILL");
  await exited;
}

afterEach(async () => {
  await Promise.all(caches.splice(0).map((c) => c.close()));
  await Promise.all([...children].map(kill));
  for (const srv of servers.splice(0)) await new Promise((r) => srv.close(r));
  if (prefixes.length === 0) return;
  const admin = new Redis(SHARED_URL, { maxRetriesPerRequest: 1 });
  try {
    for (const prefix of prefixes.splice(0)) {
      let cursor = "0";
      do {
        const [next, keys] = await admin.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000);
        if (keys.length > 0) await admin.del(...keys);
        cursor = next;
      } while (cursor !== "0");
    }
  } finally {
    admin.disconnect();
  }
});

afterAll(async () => {
  await Promise.all([...children].map(kill));
});

describe("dedup cache against the shared Redis", () => {
  it("[dedup-cache] a marker set after a claim makes the next check answer seen", async () => {
    const { cache } = open({ timeoutMs: PATIENT_MS });
    await untilWorking(cache);
    expect(await cache.seen("stripe", "evt_1")).toBe(false);
    cache.mark("stripe", "evt_1");
    // One connection: Redis runs the SET before the EXISTS sent after it.
    expect(await cache.seen("stripe", "evt_1")).toBe(true);
  });

  it("[dedup-cache] an event never marked answers not seen, so the caller does the real claim", async () => {
    const { cache } = open({ timeoutMs: PATIENT_MS });
    await untilWorking(cache);
    expect(await cache.seen("stripe", "evt_never")).toBe(false);
    expect(await cache.seen("github", "evt_never")).toBe(false);
  });

  it("[dedup-cache] a marker is written with EX ttl and stops answering once the TTL has passed", async () => {
    const { cache, keyPrefix } = open({ ttlSeconds: 1, timeoutMs: PATIENT_MS });
    await untilWorking(cache);
    cache.mark("stripe", "evt_ttl");
    expect(await cache.seen("stripe", "evt_ttl")).toBe(true);
    const admin = new Redis(SHARED_URL);
    try {
      const key = dedupCacheKey(keyPrefix, "stripe", "evt_ttl");
      expect(await admin.get(key)).toBe("1");
      const pttl = await admin.pttl(key);
      expect(pttl).toBeGreaterThan(0);
      expect(pttl).toBeLessThanOrEqual(1000);
    } finally {
      admin.disconnect();
    }
    await sleep(1200);
    expect(await cache.seen("stripe", "evt_ttl")).toBe(false);
  });

  it("[dedup-cache] markers of two sources, or of pairs that concatenate alike, do not collide", async () => {
    const { cache } = open({ timeoutMs: PATIENT_MS });
    await untilWorking(cache);
    cache.mark("stripe", "evt_same");
    expect(await cache.seen("stripe", "evt_same")).toBe(true);
    expect(await cache.seen("github", "evt_same")).toBe(false);

    cache.mark("a", "b:c");
    expect(await cache.seen("a", "b:c")).toBe(true);
    expect(await cache.seen("a:b", "c")).toBe(false);
    expect(await cache.seen("a:", "b:c")).toBe(false);
    expect(await cache.seen("a", "b:c ")).toBe(false);
    expect(await cache.seen("1:a", ":b:c")).toBe(false); // would alias "1:a:b:c" under a bare length prefix + colon
  });

  it("[dedup-cache] 255-character and odd-unicode event ids are kept apart exactly, under short printable keys", async () => {
    const { cache, keyPrefix } = open({ timeoutMs: PATIENT_MS });
    await untilWorking(cache);
    // Each marked id next to an id a careless key (UTF-8, normalised, trimmed, glob-sensitive) would confuse it with.
    const pairs: [marked: string, twin: string][] = [
      ["x".repeat(255), "x".repeat(254)],
      ["😀".repeat(127) + "x", "😀".repeat(127) + "y"],
      ["caf\u00e9", "cafe\u0301"], // NFC vs NFD
      ["evt_\ud800", "evt_\ud801"], // lone surrogates: both are U+FFFD in UTF-8
      ["evt_*", "evt_?"],
      ["[abc]", "a"],
      ["evt\u0000nul", "evt"],
      ["evt\r\nSET x 1", "evt"],
      [" evt ", "evt"],
      ["\u202eevt", "evt"],
      ["wl:dedup:stripe:x", "x"],
    ];
    for (const [marked] of pairs) cache.mark("shopify", marked);
    for (const [marked, twin] of pairs) {
      expect(await cache.seen("shopify", marked)).toBe(true);
      expect(await cache.seen("shopify", twin)).toBe(false);
    }
    for (const [marked] of pairs) {
      const key = dedupCacheKey(keyPrefix, "shopify", marked);
      expect(key).toMatch(/^[\x21-\x7e]+$/);
      expect(key.length).toBeLessThan(keyPrefix.length + 60);
    }
  });

  it("[dedup-cache] the null cache answers not seen and ignores marks", async () => {
    noDedupCache.mark("stripe", "evt_1");
    expect(await noDedupCache.seen("stripe", "evt_1")).toBe(false);
    await noDedupCache.close();
  });
});

describe("dedup cache when Redis fails", () => {
  it("[dedup-cache] with Redis killed, every check answers not seen within the budget and marks do not throw", async () => {
    const port = await freePort();
    const child = await startRedis(port);
    const { cache, logs } = open({ url: `redis://127.0.0.1:${port}` });
    await untilWorking(cache, 10_000, ["stripe", "evt_before"]);
    const logged = logs.length;

    await kill(child);
    // From the first call after the kill, before the client may even have noticed the close.
    const until = Date.now() + 1500;
    while (Date.now() < until) {
      expect(() => cache.mark("stripe", "evt_after")).not.toThrow();
      expect((await timedSeen(cache, "stripe", "evt_before")).answer).toBe(false);
      await sleep(10);
    }
    // A burst of checks is not queued behind the dead connection: all answer at once.
    const started = performance.now();
    const burst = await Promise.all(Array.from({ length: 1000 }, (_, n) => cache.seen("stripe", `evt_${n}`)));
    expect(burst.every((b) => b === false)).toBe(true);
    expect(performance.now() - started).toBeLessThan(CALL_LIMIT_MS);
    // One line for the outage, whichever saw it first (the close, or a command on the closing socket).
    expect(logs).toHaveLength(logged + 1);
    expect(logs[logged]).toMatch(/^dedup cache: .+; answering from the ledger for now$/);
    expect(logs.join("\n")).not.toContain("evt_");
  });

  it("[dedup-cache] after Redis restarts on the same port the same cache reconnects and answers again", async () => {
    const port = await freePort();
    const first = await startRedis(port);
    const { cache, logs } = open({ url: `redis://127.0.0.1:${port}` });
    await untilWorking(cache);

    await kill(first);
    expect((await timedSeen(cache, "stripe", "evt_1")).answer).toBe(false);
    // The cache has seen the outage (and its reconnects fail against the closed port) before the restart.
    await expect
      .poll(() => logs.some((l) => l.endsWith("answering from the ledger for now")), { timeout: 5000 })
      .toBe(true);
    await startRedis(port);

    await untilWorking(cache); // a marker written through the same cache object is read back
    expect(await cache.seen("stripe", "evt_1")).toBe(false); // the restarted server kept nothing
    expect(logs).toContain("dedup cache: answering again");
  });

  it("[dedup-cache] a server that accepts TCP but never answers costs each check no more than the budget", async () => {
    const sockets = new Set<Socket>();
    const srv = createServer((s) => {
      sockets.add(s);
      s.on("error", () => {});
      s.on("close", () => sockets.delete(s));
    });
    servers.push(srv);
    srv.listen(0, "127.0.0.1");
    await once(srv, "listening");
    const { port } = srv.address() as AddressInfo;
    const { cache } = open({ url: `redis://127.0.0.1:${port}` });
    try {
      // Long enough to cover the handshake stalling and the socket being dropped and reopened.
      const until = Date.now() + 2500;
      while (Date.now() < until) {
        expect(() => cache.mark("stripe", "evt_1")).not.toThrow();
        expect((await timedSeen(cache, "stripe", "evt_1")).answer).toBe(false);
        await sleep(10);
      }
    } finally {
      await cache.close();
      for (const s of sockets) s.destroy();
    }
  });

  it("[dedup-cache] a connected Redis that stops answering costs three budgets, then is skipped until it is back", async () => {
    const port = await freePort();
    const child = await startRedis(port);
    // A breaker long enough that the hundred checks below end inside it on a loaded machine.
    const { cache, logs, keyPrefix } = open({ url: `redis://127.0.0.1:${port}`, breakerMs: 5000 });
    await untilWorking(cache);

    child.kill("SIGSTOP");
    try {
      // A lone late answer is forgiven (a busy event loop); three in a row open the breaker.
      for (const id of ["evt_1", "evt_2", "evt_3"]) {
        const late = await timedSeen(cache, "stripe", id);
        expect(late.answer).toBe(false);
        expect(late.ms).toBeGreaterThanOrEqual(3); // it waited for the 5 ms budget, not longer
      }
      expect(logs.at(-1)).toBe(
        "dedup cache: no answer within 5 ms, 3 times in a row; answering from the ledger for now",
      );
      // The breaker is open: a hundred checks and marks in a row are not sent to Redis at all (a stopped server
      // would apply whatever was sent once it resumes; below, none of them is there).
      for (let n = 0; n < 100; n++) {
        expect(() => cache.mark("stripe", `evt_${n}`)).not.toThrow();
        expect((await timedSeen(cache, "stripe", `evt_${n}`)).answer).toBe(false);
      }
    } finally {
      child.kill("SIGCONT");
    }
    await untilWorking(cache);
    expect(logs).toContain("dedup cache: answering again");
    const direct = new Redis(`redis://127.0.0.1:${port}`, { maxRetriesPerRequest: 1 });
    try {
      const keys = Array.from({ length: 100 }, (_, n) => dedupCacheKey(keyPrefix, "stripe", `evt_${n}`));
      expect(await direct.exists(...keys)).toBe(0);
    } finally {
      direct.disconnect();
    }
  });

  it("[dedup-cache] a cache pointed at a port nobody listens on answers not seen at once, and logs no password", async () => {
    const port = await freePort();
    const { cache, logs } = open({ url: `redis://ledger:s3cret-pw@127.0.0.1:${port}` });
    for (let n = 0; n < 20; n++) {
      expect(() => cache.mark("stripe", "evt_1")).not.toThrow();
      expect((await timedSeen(cache, "stripe", "evt_1")).answer).toBe(false);
      await sleep(20);
    }
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatch(/^dedup cache: connect ECONNREFUSED/);
    expect(logs.join("\n")).not.toContain("s3cret");
  });
});
