import { readdirSync } from "node:fs";
import postgres from "postgres";
import { describe, expect, it } from "vitest";
import { migratePostgresUrl, MIGRATIONS_FOLDER } from "@/db/migrate";
import { scratchDatabase } from "../db";

describe("migrations", () => {
  it("[db] four instances migrating a fresh database at once all succeed and apply each migration once", async () => {
    const url = await scratchDatabase("mig");
    await Promise.all(Array.from({ length: 4 }, () => migratePostgresUrl(url)));
    const check = postgres(url, { max: 1, onnotice: () => {} });
    try {
      const applied = await check<{ n: number }[]>`select count(*)::int as n from drizzle.__drizzle_migrations`;
      const files = readdirSync(MIGRATIONS_FOLDER).filter((f) => f.endsWith(".sql"));
      expect(applied[0]?.n).toBe(files.length);
      const pending = await check<
        { indexdef: string }[]
      >`select indexdef from pg_indexes where indexname = 'webhook_event_pending_idx'`;
      expect(pending[0]?.indexdef).toContain("WHERE (status = ANY (ARRAY['claimed'::text, 'failed'::text]))");
    } finally {
      await check.end();
    }
  });
});
