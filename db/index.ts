import { getEnv } from "@/lib/env";
import { connectPglite, connectPostgres, type Db, type DbHandle } from "./client";
import { migratePglite, migratePostgresUrl } from "./migrate";

export type { Db, Tx, DbHandle } from "./client";

/** The process's database: the main pool, and the receiver's claims on connections of their own. */
export interface AppDb extends DbHandle {
  /** The claim pool (Postgres): the worker or a busy console can never take the connections claims need. */
  claimDb: Db;
}

const globalForDb = globalThis as unknown as { __ledgerDb?: Promise<AppDb> };

async function open(): Promise<AppDb> {
  const env = getEnv();
  if (env.DATABASE_URL) {
    await migratePostgresUrl(env.DATABASE_URL);
    const bounds = {
      idleInTransactionTimeoutMs: env.DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS,
      connectTimeoutSeconds: Math.max(1, Math.ceil(env.WEBHOOK_CLAIM_TIMEOUT_MS / 1000)),
    };
    const main = connectPostgres(env.DATABASE_URL, {
      ...bounds,
      max: env.DATABASE_POOL_MAX,
      statementTimeoutMs: env.DATABASE_STATEMENT_TIMEOUT_MS,
    });
    // A claim past its deadline is answered 503 anyway; the server stops it there too (a lock wait, say).
    const claims = connectPostgres(env.DATABASE_URL, {
      ...bounds,
      max: env.CLAIM_POOL_MAX,
      statementTimeoutMs: env.WEBHOOK_CLAIM_TIMEOUT_MS,
      applicationName: "webhook-ledger claims",
    });
    return {
      ...main,
      claimDb: claims.db,
      close: async () => {
        await Promise.all([claims.close(), main.close()]);
      },
    };
  }
  const handle = await connectPglite(env.PGLITE_DIR);
  await migratePglite(handle);
  return { ...handle, claimDb: handle.db };
}

/**
 * The process-wide database, migrated on first use. Cached on globalThis so dev reloads
 * and the several bundles Next builds share one pool (and PGlite's single connection).
 */
export function getDbHandle(): Promise<AppDb> {
  globalForDb.__ledgerDb ??= open().catch((err: unknown) => {
    globalForDb.__ledgerDb = undefined; // let the next request try again
    throw err;
  });
  return globalForDb.__ledgerDb;
}

export async function getDb() {
  return (await getDbHandle()).db;
}

/** The receiver's pool (the main one on PGlite, which is one connection anyway). */
export async function getClaimDb() {
  return (await getDbHandle()).claimDb;
}

export async function closeDb(): Promise<void> {
  const handle = globalForDb.__ledgerDb;
  globalForDb.__ledgerDb = undefined;
  if (handle) await (await handle.catch(() => undefined))?.close();
}
