import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { connectPostgres, rowsOf, setLocalTimeouts } from "@/db/client";
import { sqlState } from "@/lib/errors";
import { testDatabaseUrl } from "../db";

describe("pool bounds", () => {
  it(
    "[db] pool connections carry statement_timeout and idle_in_transaction_session_timeout, plan no parallel " +
      "workers, and a stalled statement is stopped by the server (57014)",
    async () => {
      const h = connectPostgres(testDatabaseUrl(), {
        statementTimeoutMs: 300,
        idleInTransactionTimeoutMs: 700,
        applicationName: "ledger bounds test",
      });
      try {
        const [row] = rowsOf<{ st: string; idle: string; app: string }>(
          await h.db.execute(sql`select current_setting('statement_timeout') as st,
          current_setting('idle_in_transaction_session_timeout') as idle, current_setting('application_name') as app`),
        );
        expect(row).toEqual({ st: "300ms", idle: "700ms", app: "ledger bounds test" });
        // And no parallel workers: their start-up cost more than a whole short statement (db/client.ts).
        const [parallel] = rowsOf<{ n: string }>(
          await h.db.execute(sql`select current_setting('max_parallel_workers_per_gather') as n`),
        );
        expect(parallel).toEqual({ n: "0" });
        const err = await h.db.execute(sql`select pg_sleep(2)`).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(sqlState(err)).toBe("57014");
      } finally {
        await h.close();
      }
    },
  );

  it("[db] a worker or replay transaction may set a longer statement bound for itself only", async () => {
    const h = connectPostgres(testDatabaseUrl(), { max: 1, statementTimeoutMs: 200 });
    try {
      await h.db.transaction(async (tx) => {
        await setLocalTimeouts(tx, { statementTimeoutMs: 5000 });
        await tx.execute(sql`select pg_sleep(0.4)`);
      });
      const [row] = rowsOf<{ st: string }>(await h.db.execute(sql`select current_setting('statement_timeout') as st`));
      expect(row?.st).toBe("200ms");
    } finally {
      await h.close();
    }
  });
});
