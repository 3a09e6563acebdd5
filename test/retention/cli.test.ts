import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { runCli } from "../cli";
import { rowsOf } from "@/db/client";
import { setupTestDb } from "../db";
import { drain, testSettings } from "../worker/helpers";
import { age, deliverStripe, tableCounts } from "./helpers";

const { db } = setupTestDb();

const cli = (file: "prune" | "erase", args: string[]) => runCli(file, args);

const json = (stdout: string) => JSON.parse(stdout.trim().split("\n").at(-1)!) as Record<string, unknown>;

describe("npm run prune / npm run erase", () => {
  it("[retention] npm run prune -- --dry-run counts and changes nothing; npm run prune prunes and records its run", async () => {
    for (const id of ["evt_1", "evt_2", "evt_3"]) await deliverStripe(db, id);
    await drain(db, testSettings());
    await age(db, 100, ["evt_1", "evt_2"]);
    const dry = await cli("prune", ["--dry-run"]);
    expect(dry.code).toBe(0);
    expect(json(dry.stdout)).toMatchObject({ dryRun: true, events: 2, deliveries: 2, attempts: 2, transitions: 2 });
    expect((await tableCounts(db)).events).toBe(3);

    const real = await cli("prune", []);
    expect(real.code, real.stderr).toBe(0);
    expect(json(real.stdout)).toMatchObject({ status: "succeeded", events: 2, deliveries: 2, attempts: 2 });
    expect(await tableCounts(db)).toMatchObject({ events: 1, tombstones: 2 });
    const [run] = rowsOf<{ actor: string; events: number }>(
      await db.execute(sql`select actor, events from retention_run`),
    );
    expect(run).toMatchObject({ actor: expect.stringMatching(/^cli:/) as unknown, events: 2 });
  });

  it("[erasure] npm run erase -- --subject … [--dry-run] prints one JSON line with the count", async () => {
    await deliverStripe(db, "evt_1", { customerId: "cus_CliErase001" });
    await deliverStripe(db, "evt_2", { customerId: "cus_CliErase001" });
    const dry = await cli("erase", ["--subject", "cus_CliErase001", "--dry-run"]);
    expect(dry.code).toBe(0);
    expect(dry.stdout.trim().split("\n")).toHaveLength(1);
    expect(json(dry.stdout)).toMatchObject({ dryRun: true, events: 2 });
    const real = await cli("erase", ["--subject", "cus_CliErase001", "--reference", "DSR-7"]);
    expect(real.code, real.stderr).toBe(0);
    expect(json(real.stdout)).toMatchObject({ dryRun: false, erased: 2 });
    const [audit] = rowsOf<{ actor_email: string; target: string }>(
      await db.execute(sql`select actor_email, target from audit_log where action = 'subjects.erase'`),
    );
    expect(audit).toMatchObject({ actor_email: expect.stringMatching(/^cli:/) as unknown, target: "subject:DSR-7" });
    expect((await cli("erase", [])).code).toBe(2);
  });
});
