/**
 * Candidate indexes for the console, tried by hand in the bench database (never a migration): built one
 * at a time, the slow cases re-timed, the size read, and what each costs a 10,000-row insert.
 */
import { sql as dsql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/postgres-js";
import type postgres from "postgres";
import type { Db } from "@/db/client";
import { EVENT_COLUMNS, seedEvents } from "../test/seed-events";

export interface Candidate {
  name: string;
  ddl: string;
  /** Undoes `ddl`; an index candidate is dropped. */
  undo?: string;
  /** Changes planner statistics, not writes: no ingest cost to measure. */
  stats?: boolean;
  /** The cases worth re-timing with it (by name). */
  for: RegExp;
}

// A btree cannot serve the subject search; only its statistics can.
const index = (name: string, cols: string): Candidate => ({
  name,
  ddl: `create index bench_${name} on webhook_event_state ${cols}`,
  for: /^(?!events: search)/,
});

export const CANDIDATES: Candidate[] = [
  index("received3", "(received_at, event_id, source)"),
  index("open", "(received_at, event_id, source) where status <> 'settled'"),
  index("status", "(status, received_at, event_id, source)"),
  index("type", "(event_type, received_at, event_id, source)"),
  index("source", "(source, received_at, event_id)"),
  {
    name: "subject-stats",
    ddl: "alter table webhook_event_body alter column subject_ids set statistics 1000; analyze webhook_event_body",
    undo: "alter table webhook_event_body alter column subject_ids set statistics -1; analyze webhook_event_body",
    stats: true,
    for: /search/,
  },
];

const run = async (sql: postgres.Sql, statements: string) => {
  for (const s of statements.split(";")) await sql.unsafe(s);
};

export async function build(sql: postgres.Sql, c: Candidate): Promise<{ seconds: number; mb: number }> {
  const t0 = performance.now();
  await sql.unsafe("set maintenance_work_mem = '512MB'");
  await run(sql, c.ddl);
  const seconds = (performance.now() - t0) / 1000;
  if (c.stats) return { seconds, mb: 0 };
  const [row] = await sql<{ b: string }[]>`select pg_relation_size(${`bench_${c.name}`}::regclass)::text as b`;
  return { seconds, mb: Number(row?.b ?? 0) / 2 ** 20 };
}

export const drop = (sql: postgres.Sql, c: Candidate) => run(sql, c.undo ?? `drop index if exists bench_${c.name}`);

class Rollback extends Error {}

/**
 * Median time of one seed of 10,000 ledger rows (copies of settled rows under new ids, through the tests' seed
 * helper: staged, then one insert per table), rolled back each time. Run after all query timings: the rolled-back
 * rows leave dead tuples behind. drizzle here replaces the date parsers of `sql`, which reads no dates.
 */
export async function ingest10k(sql: postgres.Sql): Promise<number> {
  const db = drizzle(sql) as unknown as Db;
  await db.execute(dsql`create temp table if not exists bench_ingest as
    select * from webhook_event where status = 'settled' order by random() limit 10000`);
  await db.execute(dsql`update bench_ingest set event_id = event_id || '-bench' where event_id not like '%-bench'`);
  const ms: number[] = [];
  for (let i = 0; i < 5; i++) {
    await db
      .transaction(async (tx) => {
        const t0 = performance.now();
        await seedEvents(tx, EVENT_COLUMNS, dsql`select ${dsql.raw(EVENT_COLUMNS)} from bench_ingest`);
        ms.push(performance.now() - t0);
        throw new Rollback();
      })
      .catch((err: unknown) => {
        if (!(err instanceof Rollback)) throw err;
      });
  }
  ms.sort((a, b) => a - b);
  return ms[2] ?? NaN;
}
