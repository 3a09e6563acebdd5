import path from "node:path";
import { sql } from "drizzle-orm";
import { migrate as migratePostgres } from "drizzle-orm/postgres-js/migrator";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import type { DbHandle } from "./client";

// Resolved from the working directory: inside Next's server bundle import.meta.url points into .next/.
export const MIGRATIONS_FOLDER = path.resolve(process.cwd(), "drizzle");

// Any fixed 64-bit number; every instance must agree on it.
const MIGRATION_LOCK_KEY = 7_312_604_118_022_019n;

/**
 * Apply pending migrations. On Postgres several instances may start at once, so the run is
 * serialised with a session advisory lock on a dedicated single connection.
 */
export async function migratePostgresUrl(url: string): Promise<void> {
  const client = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const db = drizzlePostgres(client);
    await db.execute(sql`select pg_advisory_lock(${MIGRATION_LOCK_KEY})`);
    try {
      await migratePostgres(db, { migrationsFolder: MIGRATIONS_FOLDER });
    } finally {
      await db.execute(sql`select pg_advisory_unlock(${MIGRATION_LOCK_KEY})`);
    }
  } finally {
    await client.end({ timeout: 5 });
  }
}

/** PGlite is one process, one connection: no lock needed. */
export async function migratePglite(handle: DbHandle): Promise<void> {
  const { migrate } = await import("drizzle-orm/pglite/migrator");
  // Both drivers share the Db type; the PGlite migrator wants its own database type.
  await migrate(handle.db as never, { migrationsFolder: MIGRATIONS_FOLDER });
}
