import { sql } from "drizzle-orm";
import { beforeEach, describe, expect, it } from "vitest";
import { runCli } from "../cli";
import type { Actor } from "@/lib/roles";
import { listEvents } from "@/lib/console/list-events";
import { stripeSubscriptionEvent } from "@/test/fixtures/stripe";
import { setupTestDb } from "../db";
import { claim, drain, testSettings } from "../worker/helpers";

const { db } = setupTestDb();
const support: Actor = { id: "s1", email: "support@example.com", role: "support" };

beforeEach(async () => {
  await db.execute(sql`truncate subject_term`);
});

const reindex = (args: string[]) => runCli("reindex-search", args);

const found = async (q: string) => (await listEvents(db, support, { filter: { q } })).rows.map((r) => r.eventId).sort();

describe("npm run reindex-search", () => {
  it("[search] events the directory lacks (claimed before it existed) are found by prefix again after a reindex, page by page", async () => {
    for (const [i, cus] of ["cus_Reindex00001", "cus_Reindex00002", "cus_Reindex00003"].entries())
      await claim(
        db,
        "stripe",
        stripeSubscriptionEvent({ eventId: `evt_r${i}`, customerId: cus, subscriptionId: `sub_R${i}` }),
      );
    await drain(db, testSettings());
    expect(await found("cus_Reindex0000")).toEqual(["evt_r0", "evt_r1", "evt_r2"]);
    // As a ledger migrated from before 0016 has it: the events, no directory.
    await db.execute(sql`truncate subject_term`);
    expect(await found("cus_Reindex0000")).toEqual([]);

    const run = await reindex(["--page", "2"]);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout.trim())).toMatchObject({ events: 3 });
    expect(await found("cus_Reindex0000")).toEqual(["evt_r0", "evt_r1", "evt_r2"]);
    // Re-runnable: nothing doubles.
    expect((await reindex([])).code).toBe(0);
    expect(await found("cus_Reindex0000")).toEqual(["evt_r0", "evt_r1", "evt_r2"]);
  });

  it("[search] a bad --after is a usage error (exit 2) that says the shape, and nothing runs", async () => {
    const run = await reindex(["--after", "no-slash"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--after is <source>\/<event id>/);
  });
});
