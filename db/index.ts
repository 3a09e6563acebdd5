import { getEnv } from "@/lib/env";
import { connectPglite, connectPostgres, type DbHandle } from "./client";
import { migratePglite, migratePostgresUrl } from "./migrate";

export type { Db, Tx, DbHandle } from "./client";

const globalForDb = globalThis as unknown as { __ledgerDb?: Promise<DbHandle> };

async function open(): Promise<DbHandle> {
  const env = getEnv();
  if (env.DATABASE_URL) {
    await migratePostgresUrl(env.DATABASE_URL);
    return connectPostgres(env.DATABASE_URL, { prepare: env.DATABASE_PREPARE });
  }
  const handle = await connectPglite(env.PGLITE_DIR);
  await migratePglite(handle);
  return handle;
}

/**
 * The process-wide database, migrated on first use. Cached on globalThis so dev reloads
 * and the several bundles Next builds share one pool (and PGlite's single connection).
 */
export function getDbHandle(): Promise<DbHandle> {
  globalForDb.__ledgerDb ??= open().catch((err: unknown) => {
    globalForDb.__ledgerDb = undefined; // let the next request try again
    throw err;
  });
  return globalForDb.__ledgerDb;
}

export async function getDb() {
  return (await getDbHandle()).db;
}

export async function closeDb(): Promise<void> {
  const handle = globalForDb.__ledgerDb;
  globalForDb.__ledgerDb = undefined;
  if (handle) await (await handle).close();
}
