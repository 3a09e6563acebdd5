import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectPostgres, type DbHandle } from "@/db/client";
import { checkReadiness, type WorkerProbe } from "@/lib/health";
import { createWorker } from "@/lib/worker/run";
import { scratchDatabase, setupTestDb } from "../db";
import { testSettings } from "../worker/helpers";
import { startOpsServer } from "./helpers";

// Liveness is the process; readiness is the database, the migrations and (embedded) the worker loop.
const { db } = setupTestDb();
const noWorker: WorkerProbe = { expected: false, lastTickAt: () => undefined, staleAfterMs: 0 };

/** A port nothing listens on: bound, then closed. */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise((resolve) => s.close(resolve));
  return port;
}

// A database on the same server with no migration applied.
let emptyUrl: string;
let empty: DbHandle;
beforeAll(async () => {
  emptyUrl = await scratchDatabase("ops_empty");
  empty = connectPostgres(emptyUrl, { max: 1 });
});
afterAll(async () => {
  await empty.close();
});

const get = async (url: string) => {
  const res = await fetch(url);
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, headers: res.headers };
};

describe("/api/health: live and ready", () => {
  it("[ops] live answers 200 without the database; ready 200 when it answers and is migrated; /api/health keeps its answer", async () => {
    const port = await closedPort();
    const down = connectPostgres(`postgres://postgres@127.0.0.1:${port}/none`, { max: 1, connectTimeoutSeconds: 1 });
    const up = await startOpsServer(db, { worker: noWorker });
    const offline = await startOpsServer(db, { getDb: async () => down.db, worker: noWorker });
    try {
      const live = await get(`${offline.url}/api/health/live`);
      expect([live.status, live.body.ok]).toEqual([200, true]);
      expect(live.headers.get("x-request-id")).toMatch(/\S/);

      const ready = await get(`${up.url}/api/health/ready`);
      expect(ready.status).toBe(200);
      expect(ready.body).toMatchObject({
        ok: true,
        failed: [],
        checks: { database: { ok: true }, migrations: { ok: true }, worker: { ok: true } },
      });
      expect(await get(`${up.url}/api/health`)).toMatchObject({ status: 200, body: { ok: true, database: "up" } });
      expect(Object.keys((await get(`${up.url}/api/health`)).body).sort()).toEqual(["database", "ok"]);
    } finally {
      await Promise.all([up.close(), offline.close(), down.close()]);
    }
  });

  it("[ops] ready answers 503 naming the database when it is unreachable (a closed port), within its bound", async () => {
    const port = await closedPort();
    const down = connectPostgres(`postgres://postgres@127.0.0.1:${port}/none`, { max: 1, connectTimeoutSeconds: 1 });
    const server = await startOpsServer(db, { getDb: async () => down.db, worker: noWorker });
    try {
      const started = performance.now();
      const ready = await get(`${server.url}/api/health/ready`);
      expect(performance.now() - started).toBeLessThan(3000);
      expect(ready.status).toBe(503);
      expect(ready.body).toMatchObject({ ok: false, failed: ["database"], checks: { database: { ok: false } } });
      expect(JSON.stringify(ready.body)).not.toContain(String(port)); // no address handed to anyone who asks
      expect((await get(`${server.url}/api/health`)).body).toEqual({ ok: false, database: "down" });
      expect((await get(`${server.url}/api/health/live`)).status).toBe(200);
    } finally {
      await server.close();
      await down.close();
    }
  });

  it("[ops] ready answers 503 naming the migrations when none, or not all, are applied", async () => {
    const none = await checkReadiness({ getDb: async () => empty.db, worker: noWorker });
    expect(none).toMatchObject({ ok: false, failed: ["migrations"], checks: { database: { ok: true } } });
    expect(none.checks.migrations.detail).toMatch(/^none of \d+ applied$/);

    // Only the first migration recorded: the journal has more.
    const raw = postgres(emptyUrl, { max: 1, onnotice: () => {} });
    try {
      await raw.unsafe(`create schema if not exists drizzle`);
      await raw.unsafe(
        `create table drizzle.__drizzle_migrations (id serial primary key, hash text not null, created_at bigint)`,
      );
      await raw.unsafe(`insert into drizzle.__drizzle_migrations (hash, created_at) values ('h', 1)`);
    } finally {
      await raw.end();
    }
    const partial = await checkReadiness({ getDb: async () => empty.db, worker: noWorker });
    expect(partial).toMatchObject({ ok: false, failed: ["migrations"] });
    expect(partial.checks.migrations.detail).toMatch(/^1 of \d+ applied/);

    const server = await startOpsServer(db, { getDb: async () => empty.db, worker: noWorker });
    try {
      const ready = await get(`${server.url}/api/health/ready`);
      expect([ready.status, ready.body.failed]).toEqual([503, ["migrations"]]);
    } finally {
      await server.close();
    }
  });

  it("[ops] with WORKER_MODE=embedded, ready needs the worker loop to have gone round within a few poll intervals", async () => {
    const worker = createWorker({ getDb: async () => db, settings: testSettings({ pollMs: 50 }) });
    const probe: WorkerProbe = { expected: true, lastTickAt: () => worker.lastTickAt(), staleAfterMs: 500 };
    const before = await checkReadiness({ getDb: async () => db, worker: probe });
    expect([before.ok, before.failed, before.checks.worker.detail]).toEqual([
      false,
      ["worker"],
      "the embedded worker is not running",
    ]);
    worker.start();
    try {
      await new Promise((r) => setTimeout(r, 120));
      expect(await checkReadiness({ getDb: async () => db, worker: probe })).toMatchObject({ ok: true, failed: [] });
    } finally {
      await worker.stop();
    }
    // A loop that stopped going round: its last tick ages past the bound.
    const stalled: WorkerProbe = { expected: true, lastTickAt: () => Date.now() - 10_000, staleAfterMs: 5000 };
    const server = await startOpsServer(db, { worker: stalled });
    try {
      const ready = await get(`${server.url}/api/health/ready`);
      expect(ready.status).toBe(503);
      expect(ready.body).toMatchObject({ failed: ["worker"], checks: { worker: { ok: false } } });
    } finally {
      await server.close();
    }
  });
});
