import { mkdirSync } from "node:fs";
import path from "node:path";
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from "drizzle-orm/pg-core";
import { sql, type ExtractTablesWithRelations } from "drizzle-orm";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import postgres, { type Sql } from "postgres";
import * as schema from "./schema";

export type Schema = typeof schema;
/** One type for both drivers (postgres.js in production, PGlite for the embedded default). */
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
export type Tx = PgTransaction<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;

export interface DbHandle {
  db: Db;
  kind: "postgres" | "pglite";
  close: () => Promise<void>;
  /** Postgres LISTEN on its own connection; undefined on PGlite (one process: nothing to hear from). */
  listen?: (channel: string, onNotify: () => void) => Promise<() => Promise<void>>;
  notify?: (channel: string) => Promise<void>;
}

export interface PostgresOptions {
  max?: number;
  connectTimeoutSeconds?: number;
  /** Named prepared statements (default true); false for PgBouncer in transaction mode. */
  prepare?: boolean;
  /** Server-side bounds set on every connection of this pool (0 = PostgreSQL's default: none). */
  statementTimeoutMs?: number;
  idleInTransactionTimeoutMs?: number;
  /** Shown in pg_stat_activity: which pool a connection belongs to. */
  applicationName?: string;
}

const PER_CALL = "/* planned per call */";

/**
 * Put first in a statement over a table that grows from empty, whose cached plan would stay the empty table's:
 * a prepared statement keeps its generic plan until the table is analyzed, and with autovacuum off (or between
 * its runs on a table that grew fast) that was a sequential scan per call (bench:worker: the subscription
 * writes read every subscription per batch). Such a statement is planned at each call, with its values.
 */
export const planPerCall = sql.raw(`${PER_CALL}\n`);

/**
 * drizzle runs every query it did not name with `prepare: false`, and postgres.js then spends a second
 * round trip asking Postgres for the parameter types before it can send them, and Postgres re-plans it.
 * Our query texts are few and fixed (values are always parameters), so we prepare them all: one round
 * trip and a cached plan each. Behind PgBouncer in transaction mode add `?prepare=false` to DATABASE_URL.
 */
function preparing(client: Sql): Sql {
  return new Proxy(client, {
    get(target, prop, receiver) {
      if (prop === "unsafe")
        return (query: string, params?: unknown[], options?: object) =>
          target.unsafe(query, params as never, { ...options, prepare: !query.startsWith(PER_CALL) });
      if (prop === "begin")
        return (...args: unknown[]) => {
          const i = args.length - 1;
          const fn = args[i] as (tx: Sql) => unknown;
          args[i] = (tx: Sql) => fn(preparing(tx));
          return (target.begin as (...a: unknown[]) => unknown)(...args);
        };
      return Reflect.get(target, prop, receiver) as unknown;
    },
  });
}

/**
 * `?prepare=false` on the URL (behind PgBouncer in transaction mode, which has no named prepared statements)
 * turns prepared statements off; it is ours, so it is taken off before postgres.js sees the URL.
 */
export function withoutPrepareParam(url: string): { url: string; prepare: boolean } {
  const parsed = URL.canParse(url) ? new URL(url) : undefined;
  const value = parsed?.searchParams.get("prepare");
  if (!parsed || value === null || value === undefined) return { url, prepare: true };
  parsed.searchParams.delete("prepare");
  return { url: parsed.toString(), prepare: value !== "false" };
}

export function connectPostgres(rawUrl: string, opts: PostgresOptions = {}): DbHandle {
  const { url, prepare } = withoutPrepareParam(rawUrl);
  const client = postgres(url, {
    max: opts.max ?? 10,
    connect_timeout: opts.connectTimeoutSeconds ?? 5,
    onnotice: () => {},
    // postgres.js's default reconnect delay grows with failures counted across the whole pool, up to 20 s
    // per attempt, so a database restart under load would leave the app unavailable for a minute. Cap it at 1 s.
    backoff: (attempt: number) => Math.min(0.05 * 2 ** attempt, 1) * (0.5 + Math.random() / 2),
    // Startup parameters: a stalled lock or a forgotten transaction ends on the server, not only here.
    connection: {
      application_name: opts.applicationName ?? "webhook-ledger",
      // Every statement here is short and indexed. Past a few million rows the planner's guess for a rare subject
      // (`subject_ids && …`) grew large enough to plan parallel workers, whose start-up cost the customer view
      // more than the whole query does without them; on two cores they also take the cores the app needs.
      max_parallel_workers_per_gather: "0", // a string: postgres.js drops a startup value that is falsy
      ...(opts.statementTimeoutMs ? { statement_timeout: opts.statementTimeoutMs } : {}),
      ...(opts.idleInTransactionTimeoutMs
        ? { idle_in_transaction_session_timeout: opts.idleInTransactionTimeoutMs }
        : {}),
    },
  });
  const db = drizzlePostgres(opts.prepare === false || !prepare ? client : preparing(client), {
    schema,
  }) as unknown as Db;
  return {
    db,
    kind: "postgres",
    close: () => client.end({ timeout: 5 }),
    listen: async (channel, onNotify) => {
      const { unlisten } = await client.listen(channel, () => onNotify());
      return unlisten;
    },
    notify: async (channel) => {
      await client.notify(channel, "");
    },
  };
}

export async function connectPglite(dir: string): Promise<DbHandle> {
  // Loaded lazily so a production process on postgres.js never pulls in the WASM build.
  const { PGlite } = await import("@electric-sql/pglite");
  const { drizzle } = await import("drizzle-orm/pglite");
  const { watchPgliteTransactions } = await import("./pglite-watch");
  const watch = (client: InstanceType<typeof PGlite>) =>
    watchPgliteTransactions(client as never, (m) => console.error(`[ledger] ${m}`));
  // "memory://" keeps the database in memory (tests): nothing on disk to share, so no lock.
  if (dir.startsWith("memory://")) {
    const client = await PGlite.create(dir);
    watch(client);
    return { db: drizzle(client, { schema }) as unknown as Db, kind: "pglite", close: () => client.close() };
  }
  const { acquirePgliteLock, pgliteOpenError } = await import("./pglite-lock");
  // PGlite creates only the last folder.
  const target = path.resolve(dir);
  mkdirSync(path.dirname(target), { recursive: true });
  const lock = acquirePgliteLock(dir);
  // PostgreSQL's start-up log says why an open failed; kept (bounded) for the error, not printed.
  const log: string[] = [];
  let opening = true;
  const onStderr = (line: string) => {
    if (opening && log.push(line) > 50) log.shift();
    return false;
  };
  let client: InstanceType<typeof PGlite>;
  try {
    client = await PGlite.create(target, { onStderr });
  } catch (err) {
    lock.release();
    throw pgliteOpenError(dir, err, log);
  } finally {
    opening = false;
  }
  watch(client);
  const db = drizzle(client, { schema }) as unknown as Db;
  const close = async () => {
    try {
      await client.close();
    } finally {
      lock.release();
    }
  };
  return { db, kind: "pglite", close };
}

/**
 * Longer bounds for one transaction than its pool's (the worker's batch, a replay page), set with
 * SET LOCAL semantics so they end with the transaction.
 */
export async function setLocalTimeouts(tx: Db | Tx, t: { statementTimeoutMs: number }): Promise<void> {
  await tx.execute(sql`select set_config('statement_timeout', ${String(t.statementTimeoutMs)}, true)`);
}

/** Rows from `db.execute()`: an array on postgres.js, `{ rows }` on PGlite. */
export function rowsOf<T>(result: unknown): T[] {
  if (Array.isArray(result)) return result as T[];
  return ((result as { rows?: T[] }).rows ?? []) as T[];
}
