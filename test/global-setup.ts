import { randomBytes } from "node:crypto";
import postgres from "postgres";
import type { TestProject } from "vitest/node";
import { migratePostgresUrl } from "../db/migrate";
import { dropDatabases } from "./drop-databases";

declare module "vitest" {
  export interface ProvidedContext {
    /** A database migrated once per run; each test worker clones it (test/worker-database.ts). */
    templateDatabase: string;
    adminUrl: string;
  }
}

/** The server tests run against; a fresh template database is created in it per run and dropped after. */
const ADMIN_URL = process.env.TEST_ADMIN_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

/** A run's databases are named `ledger_{test,e2e}_<epoch ms>_…`; any this old was left by a run that was killed. */
const LEFTOVER_AFTER_MS = 6 * 3600_000;

async function sweepLeftovers(admin: postgres.Sql): Promise<void> {
  const rows = await admin<{ datname: string }[]>`
    select datname from pg_database where datname ~ '^ledger_(test|e2e)_[0-9]{13}_'`;
  const old = rows.map((r) => r.datname).filter((n) => Number(n.split("_")[2]) < Date.now() - LEFTOVER_AFTER_MS);
  if (old.length > 0) await dropDatabases(ADMIN_URL, old);
}

export default async function setup(project: TestProject) {
  const name = `ledger_test_${Date.now()}_${randomBytes(3).toString("hex")}`;
  const admin = postgres(ADMIN_URL, { max: 1, onnotice: () => {}, connect_timeout: 5 });
  try {
    await admin.unsafe(`create database ${name}`);
  } catch (err) {
    await admin.end();
    throw new Error(
      `Cannot create a test database through ${ADMIN_URL.replace(/:[^:@/]*@/, ":***@")}: ${(err as Error).message}. ` +
        "Start PostgreSQL or set TEST_ADMIN_DATABASE_URL.",
    );
  }
  await sweepLeftovers(admin);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  // The migrator's connections are closed when it returns: a template must have none while it is copied.
  await migratePostgresUrl(url.toString());
  project.provide("templateDatabase", name);
  project.provide("adminUrl", ADMIN_URL);

  return async () => {
    const clones = await admin<{ datname: string }[]>`
      select datname from pg_database where datname like ${`${name}\\_w%`}`;
    await admin.end();
    await dropDatabases(ADMIN_URL, [...clones.map((c) => c.datname), name]);
  };
}
