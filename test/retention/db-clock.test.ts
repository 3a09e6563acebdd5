import { spawn } from "node:child_process";
import { sql } from "drizzle-orm";
import { afterEach, describe, expect, it, vi } from "vitest";
import { rowsOf } from "@/db/client";
import { setAlertRule } from "@/lib/alerts/manage";
import { trimAlerts } from "@/lib/alerts/trim";
import { runRetention } from "@/lib/retention/run";
import { createRefusalRecorder } from "@/lib/sources/refusals";
import { makeUser } from "../auth/helpers";
import { evaluator, insertEvent } from "../alerts/helpers";
import { stripeInvoicePaidEvent } from "@/test/fixtures/stripe";
import { setupTestDb, testDatabaseUrl } from "../db";
import { depsFor, post } from "../receiver/harness";
import { signStripe, TEST_SECRETS } from "../sign";
import { drain, testSettings } from "../worker/helpers";
import { age, settings, tableCounts } from "./helpers";

const { db } = setupTestDb();
const CUSTOMER = "cus_ClockSkew0001";
const DAY_MS = 86_400_000;

/** `node --import tsx <file>` on this run's database, its Date `skewDays` ahead (./skewed-clock.mjs). */
function runSkewed(skewDays: number, args: string[]) {
  const env = { ...process.env, DATABASE_URL: testDatabaseUrl(), NODE_OPTIONS: "", CLOCK_SKEW_DAYS: `${skewDays}` };
  const child = spawn(process.execPath, ["--import", "tsx", "--import", "./test/retention/skewed-clock.mjs", ...args], {
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on("close", (code) => resolve({ code, stdout, stderr })),
  );
}
const lastJson = (stdout: string) => JSON.parse(stdout.trim().split("\n").at(-1)!) as Record<string, unknown>;

const invoice = (n: number) =>
  JSON.stringify(
    stripeInvoicePaidEvent({ eventId: `evt_skew_${n}`, invoiceId: `in_skew_${n}`, customerId: CUSTOMER, amount: 100 }),
  );
/** A signed delivery through the real receiver, signed now (a provider's retry signs again). */
const deliver = (body: string) => post(depsFor(db), "stripe", signStripe(body, TEST_SECRETS.stripe));

async function customerTotal(): Promise<number> {
  const [row] = rowsOf<{ total: string }>(
    await db.execute(sql`select amount_paid::text as total from customer_total where customer_id = ${CUSTOMER}`),
  );
  return Number(row?.total ?? 0);
}

async function dbNow(): Promise<number> {
  const [row] = rowsOf<{ now: string }>(await db.execute(sql`select now()::text as now`));
  return new Date(row!.now).getTime();
}

describe("retention keeps to the database's clock", () => {
  it("[retention] a prune on a host whose clock is 500 days ahead keeps recent events and every tombstone; a provider retry stays a duplicate", async () => {
    const probe = await runSkewed(500, ["-e", "console.log(Date.now())"]);
    expect(Number(probe.stdout) - Date.now()).toBeGreaterThan(499 * DAY_MS);

    for (let n = 1; n <= 60; n++) expect((await deliver(invoice(n))).body).toMatchObject({ duplicate: false });
    await drain(db, testSettings());
    expect(await customerTotal()).toBe(6000);
    // Twenty past RETENTION_DAYS (90) by the database's clock, forty well within it.
    await age(
      db,
      100,
      Array.from({ length: 20 }, (_, i) => `evt_skew_${i + 1}`),
    );

    const dry = await runSkewed(500, ["lib/cli/prune.ts", "--dry-run"]);
    expect(dry.code, dry.stderr).toBe(0);
    const preview = lastJson(dry.stdout);
    expect(preview).toMatchObject({ events: 20, tombstones: 0 });
    const cutoff = new Date(String(preview.eventsBefore)).getTime();
    expect(Math.abs(cutoff - ((await dbNow()) - 90 * DAY_MS))).toBeLessThan(60_000);

    const run = await runSkewed(500, ["lib/cli/prune.ts"]);
    expect(run.code, run.stderr).toBe(0);
    expect(lastJson(run.stdout)).toMatchObject({ status: "succeeded", events: 20, tombstones: 0 });
    expect(await tableCounts(db)).toMatchObject({ events: 40, tombstones: 20 });
    const [recorded] = rowsOf<{ behind: number }>(
      await db.execute(
        sql`select extract(epoch from now() - events_before)::float / 86400 as behind from retention_run`,
      ),
    );
    expect(recorded?.behind).toBeCloseTo(90, 1);

    for (const n of [1, 20, 21, 60]) {
      const retry = await deliver(invoice(n));
      expect(retry, `evt_skew_${n}`).toMatchObject({ status: 200, body: { received: true, duplicate: true } });
    }
    expect(await drain(db, testSettings())).toEqual([]);
    expect(await customerTotal()).toBe(6000);
  });

  it("[retention] a tombstone is never deleted in the run that wrote it, even for an event older than TOMBSTONE_DAYS", async () => {
    await deliver(invoice(1));
    await drain(db, testSettings());
    await age(db, 500);
    const run = await runRetention(db, settings(), { actor: "test" });
    expect(run).toMatchObject({ status: "succeeded", events: 1, tombstones: 0 });
    expect(await tableCounts(db)).toMatchObject({ events: 0, tombstones: 1 });
    expect((await deliver(invoice(1))).body).toMatchObject({ duplicate: true });
    expect(await drain(db, testSettings())).toEqual([]);
    expect(await customerTotal()).toBe(100);
    // Its dedup has run out: the next run deletes it.
    expect(await runRetention(db, settings(), { actor: "test" })).toMatchObject({ events: 0, tombstones: 1 });
  });

  describe("with this process's clock 500 days behind", () => {
    afterEach(() => {
      vi.useRealTimers();
    });
    const skewBack = () => {
      vi.useFakeTimers({ toFake: ["Date"] });
      vi.setSystemTime(Date.now() - 500 * DAY_MS);
    };

    it("[sources] a refusal is stamped with the database's clock, so the table's trim by age keeps it", async () => {
      const recorder = createRefusalRecorder({ getDb: () => Promise.resolve(db), flushMs: 60_000 });
      skewBack();
      recorder.record({ source: "stripe", reason: "bad_signature", detail: "no match", status: 401 });
      await recorder.close(); // the write trims the table by age as it goes
      const rows = rowsOf<{ ago: number }>(
        await db.execute(sql`select extract(epoch from now() - at)::float as ago from webhook_refusal`),
      );
      expect(rows).toHaveLength(1);
      expect(Math.abs(rows[0]!.ago)).toBeLessThan(60);
    });

    it("[alerts] an incident closed because its rule was turned off is stamped with the database's clock, so the trim keeps it", async () => {
      const admin = await makeUser(db, "admin");
      const ev = evaluator(db, { env: { ALERT_DEAD_EVENTS: "on" } });
      await insertEvent(db, { eventId: "evt_dead", status: "dead" });
      await ev.tick();
      await setAlertRule({ db, actor: admin, input: { rule: "dead_event", enabled: false } });
      skewBack();
      await ev.tick(); // closes the incident
      await trimAlerts(db); // resolved incidents older than ALERT_KEEP_DAYS go
      const rows = rowsOf<{ state: string; ago: number }>(
        await db.execute(sql`select state, extract(epoch from now() - resolved_at)::float as ago from alert_incident`),
      );
      expect(rows).toHaveLength(1);
      expect(rows[0]?.state).toBe("resolved");
      expect(Math.abs(rows[0]!.ago)).toBeLessThan(60);
    });
  });
});
