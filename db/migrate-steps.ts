import { readFileSync } from "node:fs";
import path from "node:path";
import { sql } from "drizzle-orm";
import { readMigrationFiles } from "drizzle-orm/migrator";
import { rowsOf, type Db } from "./client";

/**
 * First line of a migration that must run outside a transaction, one statement at a time. Needed by
 * `CREATE INDEX CONCURRENTLY`, which Postgres refuses inside a transaction block. The marker is explicit
 * rather than guessed from the SQL; a migration that uses CONCURRENTLY without it is refused before
 * anything runs. Statements in such a migration must be re-runnable (`IF NOT EXISTS`, `IF EXISTS`): an
 * interrupted run leaves the earlier ones applied and the migration unrecorded, so the next start repeats it.
 *
 * Index builds on the ledger's big tables (webhook_event, webhook_delivery, webhook_attempt,
 * entity_transition) go in such a migration: drizzle-kit writes a plain `CREATE INDEX`, which holds a
 * SHARE lock (every claim waits) for the whole build. Rewrite it as
 * `CREATE INDEX CONCURRENTLY IF NOT EXISTS` under this marker.
 */
export const NO_TRANSACTION_MARKER = "-- migrate:no-transaction";

// drizzle's bookkeeping, unchanged: drizzle-kit and drizzle's own migrator read the same table.
const MIGRATIONS_SCHEMA = "drizzle";
const MIGRATIONS_TABLE = "__drizzle_migrations";

export interface MigrationStep {
  tag: string;
  /** The journal's `when`, recorded as `created_at`: drizzle applies what is newer than the last one recorded. */
  folderMillis: number;
  /** sha256 of the file, recorded as drizzle records it (and, like drizzle, never checked again). */
  hash: string;
  /** The file split on `--> statement-breakpoint`, as drizzle splits it. */
  statements: string[];
  transactional: boolean;
}

const IDENT = String.raw`(?:"(?:[^"]|"")+"|[A-Za-z_][A-Za-z0-9_$]*)`;
const CONCURRENT_INDEX = new RegExp(
  String.raw`^\s*CREATE\s+(?:UNIQUE\s+)?INDEX\s+CONCURRENTLY\s+(IF\s+NOT\s+EXISTS\s+)?(${IDENT})\s+ON\s+(?:ONLY\s+)?(${IDENT}(?:\s*\.\s*${IDENT})?)`,
  "i",
);

function withoutComments(statement: string): string {
  return statement.replace(/\/\*[\s\S]*?\*\//g, " ").replace(/--[^\n]*/g, " ");
}

/** Unquoted identifiers fold to lower case; quoted ones keep their spelling. */
function identName(ident: string): string {
  return ident.startsWith('"') ? ident.slice(1, -1).replaceAll('""', '"') : ident.toLowerCase();
}

interface ConcurrentIndex {
  index: string;
  /** As written, for to_regclass(): it resolves quoting and the search path the build will use. */
  table: string;
}

function concurrentIndexOf(statement: string): (ConcurrentIndex & { ifNotExists: boolean }) | undefined {
  const m = CONCURRENT_INDEX.exec(withoutComments(statement));
  if (!m) return undefined;
  return { ifNotExists: m[1] !== undefined, index: identName(m[2]!), table: m[3]!.replace(/\s+/g, "") };
}

/**
 * The migrations in journal order, as drizzle's readMigrationFiles reads them (same split, same hash),
 * each with its tag and whether it runs in a transaction. Throws on a migration that would fail or not
 * heal halfway: CONCURRENTLY without the marker, or a concurrent index build without IF NOT EXISTS.
 */
export function readMigrationSteps(migrationsFolder: string): MigrationStep[] {
  const journal = JSON.parse(readFileSync(path.join(migrationsFolder, "meta", "_journal.json"), "utf8")) as {
    entries: { tag: string; when: number }[];
  };
  const files = readMigrationFiles({ migrationsFolder });
  return files.map((file, n) => {
    const entry = journal.entries[n];
    if (!entry || entry.when !== file.folderMillis)
      throw new Error(`migrations: journal entry ${n} does not match its file`);
    const firstLine = (file.sql[0] ?? "").split("\n", 1)[0]!.trim();
    const transactional = firstLine !== NO_TRANSACTION_MARKER;
    for (const statement of file.sql) {
      if (transactional && /\bCONCURRENTLY\b/i.test(withoutComments(statement)))
        throw new Error(
          `migrations: ${entry.tag} uses CONCURRENTLY, which cannot run in a transaction; start the file with "${NO_TRANSACTION_MARKER}"`,
        );
      const concurrentBuild = /\bCREATE\s+(?:UNIQUE\s+)?INDEX\s+CONCURRENTLY\b/i.test(withoutComments(statement));
      const build = concurrentIndexOf(statement);
      if (concurrentBuild && !build?.ifNotExists)
        throw new Error(
          `migrations: ${entry.tag} builds ${build ? `"${build.index}"` : "an index"} concurrently without naming it and IF NOT EXISTS, ` +
            "so a re-run after an interrupted build would not heal (one statement per breakpoint)",
        );
    }
    return { tag: entry.tag, folderMillis: file.folderMillis, hash: file.hash, statements: file.sql, transactional };
  });
}

/**
 * An interrupted `CREATE INDEX CONCURRENTLY` leaves its index behind, INVALID: never used by queries yet
 * still maintained by every insert, and `IF NOT EXISTS` would keep it. Drop it so the build starts over.
 */
async function dropInvalidIndex(db: Db, build: ConcurrentIndex): Promise<void> {
  const [leftover] = rowsOf<{ name: string }>(
    await db.execute(sql`
      select i.indexrelid::regclass::text as name
      from pg_index i
      join pg_class c on c.oid = i.indexrelid
      where i.indrelid = to_regclass(${build.table})
        and c.relname = ${build.index}
        and not i.indisvalid
    `),
  );
  if (leftover) await db.execute(sql.raw(`DROP INDEX CONCURRENTLY IF EXISTS ${leftover.name}`));
}

async function record(db: Pick<Db, "execute">, step: MigrationStep): Promise<void> {
  await db.execute(sql`
    insert into ${sql.identifier(MIGRATIONS_SCHEMA)}.${sql.identifier(MIGRATIONS_TABLE)} ("hash", "created_at")
    values (${step.hash}, ${step.folderMillis})
  `);
}

/**
 * Apply the pending migrations in order, each in its own transaction, or statement by statement for a
 * migration marked NO_TRANSACTION_MARKER; each is recorded once it has all run. The caller serialises
 * concurrent runs. Returns the tags applied (none when the database is up to date).
 */
export async function applyMigrationSteps(db: Db, migrationsFolder: string): Promise<string[]> {
  const steps = readMigrationSteps(migrationsFolder);
  // The same table drizzle's migrator creates, so either can take over from the other.
  await db.execute(sql`CREATE SCHEMA IF NOT EXISTS ${sql.identifier(MIGRATIONS_SCHEMA)}`);
  await db.execute(sql`
    CREATE TABLE IF NOT EXISTS ${sql.identifier(MIGRATIONS_SCHEMA)}.${sql.identifier(MIGRATIONS_TABLE)} (
      id SERIAL PRIMARY KEY,
      hash text NOT NULL,
      created_at bigint
    )
  `);
  const [last] = rowsOf<{ created_at: string | number | null }>(
    await db.execute(sql`
      select created_at
      from ${sql.identifier(MIGRATIONS_SCHEMA)}.${sql.identifier(MIGRATIONS_TABLE)}
      order by created_at desc
      limit 1
    `),
  );
  // drizzle's rule: a migration is pending when it is newer than the last one recorded.
  const pending = steps.filter((step) => !last || Number(last.created_at) < step.folderMillis);
  for (const step of pending) {
    if (step.transactional) {
      await db.transaction(async (tx) => {
        for (const statement of step.statements) await tx.execute(sql.raw(statement));
        await record(tx, step);
      });
    } else {
      for (const statement of step.statements) {
        if (statement.trim() === "") continue;
        const build = concurrentIndexOf(statement);
        if (build) await dropInvalidIndex(db, build);
        await db.execute(sql.raw(statement));
      }
      await record(db, step);
    }
  }
  return pending.map((step) => step.tag);
}
