/**
 * `npm run bench:console` (issue 5): seeds a ledger of `--rows` events (default 1,000,000; 90 % settled,
 * ~1,000 due, the rest a dead pile) and times the lib queries behind each console page, then tries
 * candidate indexes by hand. A second database with a tenth of the rows and the same backlog shows
 * whether the worker's pending scan stays flat. Both databases are dropped unless `--keep`;
 * `--db NAME` reuses a kept database for the big one (`--rows` must match its size). `--seed-only` seeds the
 * big one, prints what each relation of the ledger takes (heap, TOAST, every index) and stops there.
 * `--payload compact` seeds ~300-byte payloads instead of the ~1.9 KB samples (10M events: see docs/benchmarks.md);
 * `--days N` spreads the events over N days (default 30).
 */
import { writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { connectPostgres, type DbHandle } from "@/db/client";
import { capturing, cases, explain, leaseCase, pick, termWrite, time, type Case, type Timing } from "./console-cases";
import { build, CANDIDATES, drop, ingest10k } from "./console-indexes";
import { connect, createDb, dropDb, seedLedger, urlOf, type SeedShape } from "./console-seed";

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const flag = (name: string) => process.argv.includes(`--${name}`);
const ROWS = arg("rows", 1_000_000);
const RUNS = arg("runs", 30);
const text = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? (process.argv[i + 1] ?? fallback) : fallback;
};
const PAYLOAD = text("payload", "full");
if (PAYLOAD !== "full" && PAYLOAD !== "compact") throw new Error("--payload is full or compact");
const shape: SeedShape = {
  rows: ROWS,
  settled: arg("settled", 0.9),
  pending: arg("pending", 1000),
  payload: PAYLOAD,
  days: arg("days", 30),
};
const TARGET_MS = 100;
const STAMP = Date.now();
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
const f = (ms: number) => (ms >= 100 ? ms.toFixed(0) : ms.toFixed(1));

interface Row {
  c: Case;
  t: Timing;
  uses: string;
}

async function measure(
  handle: DbHandle,
  cap: ReturnType<typeof capturing>,
  list: Case[],
  plans: string[],
): Promise<Row[]> {
  const out: Row[] = [];
  for (const c of list) {
    const t = await time(handle.db, c, RUNS);
    const { uses, text } = await explain(cap, c);
    plans.push(text);
    out.push({ c, t, uses });
    console.log(`  ${c.name}: p50 ${f(t.p50)} p95 ${f(t.p95)} max ${f(t.max)} ms, ${t.rows} rows, ${uses}`);
  }
  return out;
}

async function withDb<T>(name: string, seed: SeedShape, fn: (url: string) => Promise<T>): Promise<T> {
  const reuse = process.argv[process.argv.indexOf("--db") + 1];
  if (process.argv.includes("--db") && reuse && seed.rows === ROWS) {
    console.log(`reusing ${reuse} as it is (not seeded, not dropped)`);
    return fn(urlOf(reuse));
  }
  const url = await createDb(name);
  try {
    const seconds = await seedLedger(url, seed);
    console.log(`seeded ${name}: ${seed.rows.toLocaleString("en")} events in ${seconds.toFixed(1)} s`);
    return await fn(url);
  } finally {
    if (flag("keep")) console.log(`kept ${name}`);
    else await dropDb(name);
  }
}

async function leaseOn(url: string, plans: string[]): Promise<Row> {
  const handle = connectPostgres(url, { max: 1 });
  const capSql = connect(url);
  try {
    const [row] = await measure(handle, capturing(capSql), [leaseCase], plans);
    return row!;
  } finally {
    await handle.close();
    await capSql.end({ timeout: 5 });
  }
}

/** Bytes per relation of the ledger's big tables (heap, TOAST, each index), and the average stored column sizes. */
async function storage(sql: ReturnType<typeof connect>): Promise<void> {
  const mb = (b: string | number) => `${(Number(b) / 2 ** 20).toFixed(0)} MB`;
  const rels = await sql<{ rel: string; kind: string; bytes: string }[]>`
    select * from (select t.relname as rel, 'total' as kind, pg_total_relation_size(t.oid)::text as bytes from pg_class t
      where t.relname in ('webhook_event_body', 'webhook_event_state', 'webhook_delivery', 'webhook_attempt',
                          'entity_transition', 'subject_term')
    union all select t.relname, 'heap', pg_relation_size(t.oid)::text from pg_class t
      where t.relname in ('webhook_event_body', 'webhook_event_state')
    union all select t.relname, 'toast', pg_total_relation_size(t.reltoastrelid)::text from pg_class t
      where t.relname in ('webhook_event_body', 'webhook_event_state') and t.reltoastrelid <> 0
    union all select i.indexrelid::regclass::text, 'index', pg_relation_size(i.indexrelid)::text from pg_index i
      where i.indrelid in ('webhook_event_body'::regclass, 'webhook_event_state'::regclass)) r
    order by kind desc, bytes::bigint desc`;
  for (const r of rels) console.log(`  ${r.kind.padEnd(5)} ${r.rel.padEnd(40)} ${mb(r.bytes).padStart(8)}`);
  const [cols] = await sql<Record<string, string>[]>`
    select round(avg(pg_column_size(raw_body))) as raw_body, round(avg(octet_length(raw_body))) as raw_body_text,
           round(avg(pg_column_size(payload))) as payload, round(avg(pg_column_size(headers))) as headers,
           round(avg(pg_column_size(subject_ids))) as subject_ids, round(avg(pg_column_size(e.*))) as row
    from webhook_event_body e tablesample system (2)`;
  console.log(`  average stored bytes per row: ${JSON.stringify(cols)}`);
  const [db] = await sql<{ size: string }[]>`select pg_size_pretty(pg_database_size(current_database())) as size`;
  console.log(`  database: ${db?.size}`);
}

async function main() {
  console.log(
    `load average before: ${load()} (${os.availableParallelism()} cores); ${ROWS.toLocaleString("en")} events, ${PAYLOAD} payloads over ${shape.days} days`,
  );
  if (flag("seed-only"))
    return withDb(`ledger_bench_console_${STAMP}`, shape, async (url) => {
      const sql = connect(url);
      await storage(sql).finally(() => sql.end({ timeout: 5 }));
    });
  const plans: string[] = [];
  const small = await withDb(`ledger_bench_console_${STAMP}_small`, { ...shape, rows: Math.round(ROWS / 10) }, (url) =>
    leaseOn(url, plans),
  );
  await withDb(`ledger_bench_console_${STAMP}`, shape, async (url) => {
    const handle = connectPostgres(url, { max: 2 });
    const capSql = connect(url);
    const admin = connect(url);
    try {
      const [sizes] = await admin<{ ev: string; del: string; att: string }[]>`
        select pg_size_pretty(pg_total_relation_size('webhook_event_body') + pg_total_relation_size('webhook_event_state')) as ev,
               pg_size_pretty(pg_total_relation_size('webhook_delivery')) as del,
               pg_size_pretty(pg_total_relation_size('webhook_attempt')) as att`;
      const counts = await admin<
        { status: string; n: number }[]
      >`select status, count(*)::int as n from webhook_event group by 1 order by 2 desc`;
      console.log(
        `sizes: webhook_event ${sizes?.ev}, webhook_delivery ${sizes?.del}, webhook_attempt ${sizes?.att}; ` +
          counts.map((r) => `${r.status} ${r.n}`).join(", "),
      );
      await storage(admin);
      const cap = capturing(capSql);
      const list = cases(await pick(admin, ROWS));
      const rows = await measure(handle, cap, list, plans);
      const big = (await measure(handle, cap, [leaseCase], plans))[0]!;
      const terms = await termWrite(handle.db, RUNS);
      console.log(
        `  worker: search terms of a settled batch of 100: p50 ${f(terms.p50)} p95 ${f(terms.p95)} max ${f(terms.max)} ms`,
      );
      console.log(
        `\n| query | rows | p50 ms | p95 ms | max ms | runs | plan uses |\n|---|---:|---:|---:|---:|---:|---|`,
      );
      for (const r of rows)
        console.log(
          `| ${r.c.name} | ${r.t.rows} | ${f(r.t.p50)} | ${f(r.t.p95)} | ${f(r.t.max)} | ${r.t.runs} | ${r.uses} |`,
        );
      for (const [label, r] of [
        [`${(ROWS / 10).toLocaleString("en")} events`, small],
        [`${ROWS.toLocaleString("en")} events`, big],
      ] as const)
        console.log(
          `| ${r.c.name}, ${label} | ${r.t.rows} | ${f(r.t.p50)} | ${f(r.t.p95)} | ${f(r.t.max)} | ${r.t.runs} | ${r.uses} |`,
        );
      console.log(
        `| worker: recordSubjectTerms, batch of 100 new events | 100 | ` +
          `${f(terms.p50)} | ${f(terms.p95)} | ${f(terms.max)} | ${terms.runs} | subject_term_term_subject_pk |`,
      );
      // A "reference:" case is what a page would send without a mechanism (its A/B), not a page's query.
      const pages = rows.filter((r) => !r.c.name.startsWith("reference:"));
      const missed = pages.filter((r) => r.t.p95 > TARGET_MS);
      const flat = big.t.p95 <= small.t.p95 * 1.5 + 1 && big.uses.includes("pending_idx");
      const each = missed.length
        ? `MISSED (${missed.length} of ${pages.length}: ${missed.map((r) => r.c.name).join("; ")})`
        : "met";
      console.log(
        `\ntargets: each ≤ ${TARGET_MS} ms p95: ${each}; ` +
          `pending scan flat (p95 ${f(small.t.p95)} → ${f(big.t.p95)} ms at 10× history, pending_idx): ${flat ? "met" : "MISSED"}`,
      );
      if (flag("no-indexes")) return;
      const slow = rows.filter((r) => r.t.p95 > TARGET_MS / 2 || r.uses.includes("SEQ"));
      console.log(`\ncandidate indexes (each alone, re-timing the ${slow.length} slow cases):`);
      const built: { name: string; seconds: number; mb: number }[] = [];
      for (const cand of CANDIDATES) {
        const b = await build(admin, cand);
        built.push({ name: cand.name, ...b });
        console.log(`- ${cand.ddl}: ${cand.stats ? "" : `${b.mb.toFixed(0)} MB, `}built in ${b.seconds.toFixed(1)} s`);
        for (const r of slow.filter((x) => cand.for.test(x.c.name))) {
          const t = await time(handle.db, r.c, Math.min(RUNS, 10));
          const { uses, text } = await explain(cap, r.c);
          plans.push(`(with ${cand.name}) ${text}`);
          const better = t.p95 < r.t.p95 * 0.5 ? "  ← faster" : "";
          console.log(`    ${r.c.name}: p95 ${f(r.t.p95)} → ${f(t.p95)} ms (${uses})${better}`);
        }
        await drop(admin, cand);
      }
      // Each pair is measured back to back: the machine is shared, so a baseline from minutes ago misleads.
      console.log(
        `\ningest cost (one insert of 10,000 rows, median of 5, rolled back; current indexes → with the candidate):`,
      );
      const indexes = CANDIDATES.filter((c) => !c.stats);
      for (const set of [...indexes.map((c) => [c]), indexes]) {
        const before = await ingest10k(admin);
        for (const cand of set) await build(admin, cand);
        const after = await ingest10k(admin);
        for (const cand of set) await drop(admin, cand);
        console.log(
          `- + ${set.map((c) => c.name).join(" + ")}: ${f(before)} → ${f(after)} ms (${(((after - before) / before) * 100).toFixed(0)} %)`,
        );
      }
    } finally {
      await handle.close();
      await capSql.end({ timeout: 5 });
      await admin.end({ timeout: 5 });
    }
  }).finally(() => {
    const file = path.join(os.tmpdir(), `bench-console-plans-${STAMP}.txt`);
    writeFileSync(file, plans.join("\n"));
    console.log(`\nplans (EXPLAIN ANALYZE, BUFFERS): ${file}\nload average after: ${load()}`);
  });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
