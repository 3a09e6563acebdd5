import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { connectPostgres, rowsOf } from "@/db/client";
import { claimOne } from "@/test/claim";
import { testDatabaseUrl } from "../db";

describe("statement preparation", () => {
  for (const prepare of [true, false])
    it(`[db] the claim and a transaction work with prepare=${prepare} (false is the PgBouncer setting)`, async () => {
      const { db, close } = connectPostgres(testDatabaseUrl(), { prepare, max: 2 });
      try {
        const id = `evt_prep_${prepare}_${Date.now()}`;
        const input = {
          source: "stripe" as const,
          eventId: id,
          eventType: "x",
          rawBody: `{"id":"${id}"}`,
          headers: {},
        };
        expect(await claimOne(db, input)).toEqual({ claimed: true, reprocessed: false });
        expect(await claimOne(db, input)).toEqual({ claimed: false, reprocessed: false });
        const n = await db.transaction(
          async (tx) =>
            rowsOf<{ n: number }>(
              await tx.execute(sql`select count(*)::int as n from webhook_event where event_id = ${id}`),
            )[0]?.n,
        );
        expect(n).toBe(1);
      } finally {
        await close();
      }
    });
});
