import { sql } from "drizzle-orm";
import { rowsOf, type Db } from "@/db/client";
import { describeError, sqlState } from "@/lib/errors";

/**
 * The subject index keeps a small pending list (migration 0021): every write of an event row appends its ids
 * there instead of descending the GIN tree once per id. Whichever insert finds the list past its limit merges it
 * inside its own statement, a claim as likely as anything; merging it from the worker, five times a second, keeps
 * that rare and small. PostgreSQL lets only the index's owner (or a superuser) merge: a deployment whose app
 * user does not own its tables gets one warning, and the inserts and autovacuum merge as before.
 */
export function createIndexMerger(getDb: () => Promise<Db>, log: (message: string) => void) {
  let refused = false;
  let current: Promise<number | undefined> | undefined;
  async function run(): Promise<number | undefined> {
    try {
      const db = await getDb();
      const [row] = rowsOf<{ pages: string | number }>(
        await db.execute(sql`select gin_clean_pending_list('webhook_event_subject_ids_idx'::regclass) as pages`),
      );
      return Number(row?.pages ?? 0);
    } catch (err) {
      // 42501: not the owner. 42883/42704: a database without the function or the index (PGlite builds, an old schema).
      if (["42501", "42883", "42704"].includes(sqlState(err) ?? "")) {
        refused = true;
        log(`subject index: its pending list is left to PostgreSQL (${describeError(err)})`);
      } else log(`subject index merge: ${describeError(err)}`);
      return undefined;
    } finally {
      current = undefined;
    }
  }
  return {
    /** Merge now, unless a merge is running or PostgreSQL refused one; resolves to the pages merged. */
    merge: (): Promise<number | undefined> => (refused ? Promise.resolve(undefined) : (current ??= run())),
    /** Resolves once no merge is running (stop() waits for it before the pool closes). */
    idle: async (): Promise<void> => void (await current),
  };
}
