import { sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { rowsOf } from "@/db/client";
import { workerNodeArgs } from "@/bench/worker-procs";
import { spawnProcess, type SpawnedProcess } from "@/test/faults/processes";
import { setupTestDb, testDatabaseUrl } from "../db";
import { seedEvents } from "@/test/seed-events";

const { db } = setupTestDb();
let worker: SpawnedProcess | undefined;
afterAll(() => {
  if (worker && !worker.exited) worker.kill("SIGKILL");
});

describe("retention beside a standalone worker", () => {
  it("[retention] npm run worker schedules retention too: an old settled event is pruned to a tombstone, and SIGTERM stops it cleanly", async () => {
    await seedEvents(
      db,
      "source, event_id, event_type, payload, raw_body, headers, status, received_at, settled_at, body_sha256",
      sql`
      values ('stripe', 'evt_standalone_old', 'invoice.paid', null, '{}', '{}', 'settled', now() - interval '120 days',
              now() - interval '120 days', encode(sha256('{}'), 'hex'))`,
    );
    worker = spawnProcess("node", workerNodeArgs(), {
      env: {
        DATABASE_URL: testDatabaseUrl(),
        WORKER_POLL_MS: "50",
        RETENTION_FIRST_DELAY_MS: "100",
        RETENTION_INTERVAL_MINUTES: "60",
      },
    });
    await worker.waitForLine(/started:/, 30_000);
    const line = await worker.waitForLine(/retention run \d+: succeeded, pruned 1 events/, 30_000);
    expect(line[0]).toMatch(/pruned 1 events/);

    const runs = rowsOf<{ actor: string; status: string }>(
      await db.execute(sql`select actor, status from retention_run`),
    );
    expect(runs).toEqual([{ actor: expect.stringMatching(/^worker@/), status: "succeeded" }]);
    const left = rowsOf<{ events: number; tombstones: number }>(
      await db.execute(sql`select (select count(*)::int from webhook_event) as events,
                                  (select count(*)::int from webhook_tombstone where event_id = 'evt_standalone_old') as tombstones`),
    );
    expect(left).toEqual([{ events: 0, tombstones: 1 }]);

    worker.kill("SIGTERM");
    expect((await worker.waitForExit(20_000)).code).toBe(0);
  });
});
