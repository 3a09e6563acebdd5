import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { setupTestDb } from "../db";
import { declareBilling } from "./console-helpers";
import { evaluator, query } from "../alerts/helpers";

const { db } = setupTestDb();

describe("alerts: a destination that keeps failing", () => {
  it("[alerts] opens an incident when a destination's breaker opens (no channel needed), resolved once it answers", async () => {
    await declareBilling(db, "active");
    const ev = evaluator(db, { env: {} });
    await ev.tick();
    const incidents = () =>
      query<{ rule: string; subject: string; state: string; summary: string }>(
        db,
        sql`select rule, subject, state, summary from alert_incident order by id`,
      );
    expect(await incidents()).toEqual([]);
    // What the forwarder writes when ten attempts in a row failed (lib/forward/lease.ts recordResults).
    await db.execute(
      sql`update forward_destination set failures_in_row = 10, breaker_until = now() + interval '30 seconds'`,
    );
    await ev.tick();
    const [opened] = await incidents();
    expect(opened).toMatchObject({ rule: "destination_failing", subject: "billing", state: "firing" });
    expect(opened!.summary).toMatch(/destination billing failed 10 times in a row; forwards paused until/);
    await ev.tick();
    expect(await incidents()).toHaveLength(1);
    // A probe succeeded: the forwarder closes the breaker.
    await db.execute(sql`update forward_destination set failures_in_row = 0, breaker_until = null`);
    await ev.tick();
    expect((await incidents())[0]).toMatchObject({ state: "resolved" });
  });
});
