import { readFileSync } from "node:fs";
import path from "node:path";
import { sql } from "drizzle-orm";
import { getDb as getDefaultDb } from "@/db";
import { rowsOf, type Db } from "@/db/client";
import { MIGRATIONS_FOLDER } from "@/db/migrate";
import { pgliteHeldForMs } from "@/db/pglite-watch";
import { sqlState, UnavailableError, withinDeadline } from "@/lib/errors";
import { componentLogger, type Logger } from "@/lib/log";

export interface Health {
  ok: boolean;
  database: "up" | "down";
}

let healthLogger: Logger | undefined;
const defaultLogger = () => (healthLogger ??= componentLogger("health"));

/** GET /api/health, as it always answered: 200-worthy only when the database answers `select 1` within the timeout. */
export async function checkHealth(
  getDb: () => Promise<Db> = getDefaultDb,
  timeoutMs = 2000,
  logger: Logger = defaultLogger(),
): Promise<Health> {
  try {
    await withinDeadline(
      getDb().then((db) => db.execute(sql`select 1`)),
      timeoutMs,
      "no answer",
    );
    return { ok: true, database: "up" };
  } catch (err) {
    logger.warn({ err }, "database down");
    return { ok: false, database: "down" };
  }
}

/** Why the embedded database does not answer, when one transaction holds its only connection. */
function heldNote(): string {
  const ms = pgliteHeldForMs();
  return ms !== undefined && ms > 1000
    ? `: the embedded database's one connection has been held by one transaction for ${Math.round(ms / 1000)} s`
    : "";
}

/** GET /api/health/live: the process serves requests. Nothing else is asked, so a database outage never restarts it. */
export function checkLiveness(): { ok: true; uptimeSeconds: number } {
  return { ok: true, uptimeSeconds: Math.round(process.uptime()) };
}

/** This process's worker as readiness sees it (lib/worker/embedded.ts builds it from the environment). */
export interface WorkerProbe {
  /** A worker should run in this process (WORKER_MODE=embedded). */
  expected: boolean;
  /** When it last went round (Date.now() ms); undefined: not running. */
  lastTickAt: () => number | undefined;
  /** Longer without a round than this is a stalled worker. */
  staleAfterMs: number;
}

export interface Check {
  ok: boolean;
  detail: string;
}

export interface Readiness {
  ok: boolean;
  checks: { database: Check; migrations: Check; worker: Check };
  /** The names of the checks that failed, for a person reading a 503. */
  failed: string[];
}

interface Journal {
  entries: { idx: number; when: number; tag: string }[];
}

const journals = new Map<string, Journal>();
function journalOf(folder: string): Journal {
  let journal = journals.get(folder);
  if (!journal) {
    journal = JSON.parse(readFileSync(path.join(folder, "meta", "_journal.json"), "utf8")) as Journal;
    journals.set(folder, journal);
  }
  return journal;
}

async function migrationsCheck(db: Db, folder: string): Promise<Check> {
  const entries = journalOf(folder).entries;
  const latest = entries.at(-1);
  try {
    const [row] = rowsOf<{ n: number; last: string | number | null }>(
      await db.execute(sql`select count(*)::int as n, max(created_at) as last from drizzle.__drizzle_migrations`),
    );
    const n = Number(row?.n ?? 0);
    // drizzle's own rule: what is newer than the last one recorded is pending.
    const upToDate = n >= entries.length && (!latest || Number(row?.last ?? 0) >= latest.when);
    return upToDate
      ? { ok: true, detail: `${n} applied` }
      : { ok: false, detail: `${n} of ${entries.length} applied (latest ${latest?.tag ?? "none"} is pending)` };
  } catch (err) {
    // 42P01/3F000: no bookkeeping at all, so nothing was ever migrated here.
    const code = sqlState(err);
    if (code === "42P01" || code === "3F000") return { ok: false, detail: `none of ${entries.length} applied` };
    throw err;
  }
}

function workerCheck(probe: WorkerProbe | undefined, now: number): Check {
  if (!probe?.expected) return { ok: true, detail: "not run in this process" };
  const at = probe.lastTickAt();
  if (at === undefined) return { ok: false, detail: "the embedded worker is not running" };
  const ago = now - at;
  return ago <= probe.staleAfterMs
    ? { ok: true, detail: `last round ${ago} ms ago` }
    : { ok: false, detail: `no round for ${ago} ms (bound ${probe.staleAfterMs} ms)` };
}

/**
 * GET /api/health/ready: 200-worthy when the database answers within `timeoutMs`, every migration in the
 * journal is applied, and (WORKER_MODE=embedded) the worker has gone round within a few poll intervals.
 */
export async function checkReadiness(
  opts: {
    getDb?: () => Promise<Db>;
    timeoutMs?: number;
    migrationsFolder?: string;
    worker?: WorkerProbe;
    logger?: Logger;
  } = {},
): Promise<Readiness> {
  const getDb = opts.getDb ?? getDefaultDb;
  const logger = opts.logger ?? defaultLogger();
  const timeoutMs = opts.timeoutMs ?? 2000;
  const started = performance.now();
  let database: Check;
  let migrations: Check;
  try {
    migrations = await withinDeadline(
      getDb().then(async (db) => {
        await db.execute(sql`select 1`);
        return migrationsCheck(db, opts.migrationsFolder ?? MIGRATIONS_FOLDER);
      }),
      timeoutMs,
      "no answer",
    );
    database = { ok: true, detail: `answered in ${Math.round(performance.now() - started)} ms` };
  } catch (err) {
    // The error itself (hosts, ports) goes to the log only: this endpoint answers anyone.
    logger.warn({ err }, "readiness: database check failed");
    const code = sqlState(err);
    database = {
      ok: false,
      detail:
        err instanceof UnavailableError
          ? `no answer within ${timeoutMs} ms${heldNote()}`
          : `unreachable${code ? ` (SQLSTATE ${code})` : ""}`,
    };
    migrations = { ok: false, detail: "not checked: the database did not answer" };
  }
  const worker = workerCheck(opts.worker, Date.now());
  const checks = { database, migrations, worker };
  const failed = Object.entries(checks)
    .filter(([name, c]) => !c.ok && !(name === "migrations" && !database.ok))
    .map(([name]) => name);
  if (failed.length > 0) logger.warn({ failed, checks }, "not ready");
  return { ok: failed.length === 0, checks, failed };
}
