import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { connectPostgres } from "@/db/client";
import { checkHealth } from "@/lib/health";
import { signStripe, TEST_SECRETS } from "../sign";
import { post, testConfig } from "./harness";
import { testDatabaseUrl } from "../db";

/** A port that refuses connections: bound, then closed, so nothing listens there. */
async function deadPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  const { port } = srv.address() as AddressInfo;
  await new Promise((r) => srv.close(r));
  return port;
}

const body = JSON.stringify({
  id: "evt_down",
  object: "event",
  type: "invoice.paid",
  created: 1_764_410_000,
  data: { object: { id: "in_1", object: "invoice" } },
});

describe("database unreachable", () => {
  it("[receiver] a verified delivery answers 503, never 2xx, when Postgres refuses connections", async () => {
    const handle = connectPostgres(`postgres://postgres@127.0.0.1:${await deadPort()}/nope`, {
      connectTimeoutSeconds: 2,
    });
    try {
      const res = await post(
        { getDb: () => Promise.resolve(handle.db), config: testConfig() },
        "stripe",
        signStripe(body, TEST_SECRETS.stripe),
      );
      expect(res).toMatchObject({
        status: 503,
        body: { error: "ledger unavailable, retry later" },
        outcome: "unavailable",
      });
    } finally {
      await handle.close();
    }
  });

  it("[receiver] a delivery answers 503 when the database cannot even be opened", async () => {
    const res = await post(
      { getDb: () => Promise.reject(new Error("migration failed")), config: testConfig() },
      "stripe",
      signStripe(body, TEST_SECRETS.stripe),
    );
    expect(res.status).toBe(503);
  });

  it("[health] reports down when Postgres refuses connections and up when it answers", async () => {
    const dead = connectPostgres(`postgres://postgres@127.0.0.1:${await deadPort()}/nope`, {
      connectTimeoutSeconds: 2,
    });
    try {
      expect(await checkHealth(() => Promise.resolve(dead.db))).toEqual({ ok: false, database: "down" });
    } finally {
      await dead.close();
    }
    const live = connectPostgres(testDatabaseUrl());
    try {
      expect(await checkHealth(() => Promise.resolve(live.db))).toEqual({ ok: true, database: "up" });
    } finally {
      await live.close();
    }
  });

  it("[health] times out instead of hanging on a database that never answers", async () => {
    const started = Date.now();
    const result = await checkHealth(() => new Promise(() => {}), 200);
    expect(result.ok).toBe(false);
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
