import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { sql } from "drizzle-orm";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { rowsOf, withoutPrepareParam, type Db, type DbHandle } from "./client";
import { applyMigrationSteps } from "./migrate-steps";

// Resolved from the working directory: inside Next's server bundle import.meta.url points into .next/.
export const MIGRATIONS_FOLDER = path.resolve(process.cwd(), "drizzle");

// Any fixed 64-bit number; every instance must agree on it.
const MIGRATION_LOCK_KEY = 7_312_604_118_022_019n;
const LOCK_POLL_MS = 200;

/**
 * Polled rather than waited for with pg_advisory_lock: a backend blocked in that call holds a snapshot,
 * and CREATE INDEX CONCURRENTLY in the lock holder waits for every older snapshot in the database, so
 * the two would deadlock (Postgres then aborts one: a failed start, or an INVALID index).
 */
async function lockMigrations(db: Db): Promise<void> {
  for (;;) {
    const [row] = rowsOf<{ locked: boolean }>(
      await db.execute(sql`select pg_try_advisory_lock(${MIGRATION_LOCK_KEY}) as locked`),
    );
    if (row?.locked) return;
    await sleep(LOCK_POLL_MS);
  }
}

/**
 * Apply the pending migrations in `migrationsFolder` (see db/migrate-steps.ts). Several instances may
 * start at once, so the run is serialised with a session advisory lock on a dedicated single connection,
 * which also runs the migrations. Returns the tags applied.
 */
export async function migratePostgresFolder(url: string, migrationsFolder: string): Promise<string[]> {
  const client = postgres(withoutPrepareParam(url).url, { max: 1, onnotice: () => {} });
  try {
    const db = drizzlePostgres(client) as unknown as Db;
    await lockMigrations(db);
    try {
      return await applyMigrationSteps(db, migrationsFolder);
    } finally {
      await db.execute(sql`select pg_advisory_unlock(${MIGRATION_LOCK_KEY})`);
    }
  } finally {
    await client.end({ timeout: 5 });
  }
}

export async function migratePostgresUrl(url: string): Promise<void> {
  await migratePostgresFolder(url, MIGRATIONS_FOLDER);
}

/** PGlite is one process, one connection: no lock needed, and CONCURRENTLY has nobody to wait for. */
export async function migratePglite(handle: DbHandle): Promise<void> {
  await applyMigrationSteps(handle.db, MIGRATIONS_FOLDER);
}
