import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { connectPglite, rowsOf, type Db } from "@/db/client";
import { migratePglite } from "@/db/migrate";
import { claimEvents, parseClaim } from "@/lib/intake/claim";
import { runRetention } from "@/lib/retention/run";
import { startRetentionSchedule } from "@/lib/retention/schedule";
import { setupTestDb } from "../db";
import { seedEvents } from "@/test/seed-events";
import { settings } from "./helpers";

const { db } = setupTestDb();

const settledRow = (db: Db, id: string, daysAgo: number) =>
  seedEvents(
    db,
    "source, event_id, event_type, payload, raw_body, headers, status, received_at, settled_at, body_sha256",
    sql`values ('stripe', ${id}, 'invoice.paid', '{}', '{}', '{}', 'settled', now() - ${`${daysAgo} days`}::interval,
                now() - ${`${daysAgo} days`}::interval, encode(sha256('{}'), 'hex'))`,
  );

describe("retention schedule", () => {
  it("[retention] the worker's schedule runs retention after its first delay and stops cleanly", async () => {
    await settledRow(db, "evt_old", 120);
    const logs: string[] = [];
    const schedule = startRetentionSchedule({
      getDb: () => Promise.resolve(db),
      settings: settings(),
      intervalMs: 60_000,
      actor: "embedded@test",
      log: (m) => logs.push(m),
      firstDelayMs: 10,
    });
    try {
      for (let i = 0; i < 200 && logs.length === 0; i++) await new Promise((r) => setTimeout(r, 25));
    } finally {
      await schedule.stop();
    }
    expect(logs[0]).toMatch(/retention run \d+: succeeded, pruned 1 events/);
    const runs = rowsOf<{ actor: string; status: string }>(
      await db.execute(sql`select actor, status from retention_run`),
    );
    expect(runs).toEqual([{ actor: "embedded@test", status: "succeeded" }]);
  });

  it("[pglite] retention runs on the embedded database, and the claim answers a pruned event as a duplicate", async () => {
    const handle = await connectPglite("memory://");
    try {
      await migratePglite(handle);
      await settledRow(handle.db, "evt_old", 120);
      expect(await runRetention(handle.db, settings(), { actor: "embedded" })).toMatchObject({
        status: "succeeded",
        events: 1,
      });
      const [result] = await claimEvents(handle.db, [
        parseClaim({ source: "stripe", eventId: "evt_old", eventType: "invoice.paid", rawBody: "{}", headers: {} }),
      ]);
      expect(result).toEqual({ claimed: false, reprocessed: false });
    } finally {
      await handle.close();
    }
  });
});
