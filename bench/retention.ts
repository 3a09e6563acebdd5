/**
 * `npm run bench:retention [-- --rows 1000000 --rate 300 --batch 500 --pause 20 --duty 25 --window 5 --keep]` (issue 17):
 * seeds `--rows` settled events received 100–130 days ago (≈2 KB Stripe payloads, a delivery each plus 5 %
 * duplicates, an attempt each, a timeline row for 1 %), starts the real receiver (`lib/cli/receiver.ts`,
 * WORKER_MODE=off so only claims run) and offers it signed deliveries at a steady `--rate`: new events, and one
 * in ten a very late retry of a seeded event. Claim latency is measured before the prune, while `npm run prune`
 * runs (lib/cli/prune.ts, its own process) in windows alternating with windows where it is stopped (SIGSTOP), the
 * baseline of the same minutes, after, after a CHECKPOINT, while a plain VACUUM runs and after it. Table and index
 * sizes are read before, right
 * after, after a plain VACUUM and after VACUUM FULL. Every retry of a pruned event must answer duplicate.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import os from "node:os";
import { sql as dsql } from "drizzle-orm";
import postgres from "postgres";
import { migratePostgresUrl } from "@/db/migrate";
import { extractSubjectIds } from "@/lib/ledger/subjects";
import { stripeSubscriptionEvent } from "../test/fixtures/stripe";
import { seedEventsAt } from "../test/seed-events";
import { signStripe } from "../test/sign";
import { pacedLoad, type PacedDelivery } from "./paced";

const arg = (name: string, def: number) => {
  const i = process.argv.indexOf(`--${name}`);
  const v = i > 0 ? Number(process.argv[i + 1]) : def;
  if (!(v >= 0)) throw new Error(`--${name} wants a number`);
  return v;
};
const ROWS = arg("rows", 1_000_000);
const RATE = arg("rate", 300);
const BATCH = arg("batch", 500);
const PAUSE = arg("pause", 20);
const DUTY = arg("duty", 25);
const WINDOW = arg("window", 5);
const BASELINE_WINDOWS = arg("baseline-windows", 4);
const CONNECTIONS = 32;
const KEEP = process.argv.includes("--keep");
const ADMIN_URL = process.env.BENCH_ADMIN_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const SECRET = "whsec_bench_0123456789abcdef";
const DB = `ledger_bench_retention_${Date.now()}`;
const urlOf = (db: string) => Object.assign(new URL(ADMIN_URL), { pathname: `/${db}` }).toString();
const connect = (url: string) => postgres(url, { max: 1, onnotice: () => {} });
const mb = (b: number | string) => (Number(b) / 2 ** 20).toFixed(0);
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");

/** Seeds ROWS settled events, all older than the default RETENTION_DAYS (90), set-based like bench/console-seed.ts. */
async function seed(sql: postgres.Sql): Promise<number> {
  const t0 = performance.now();
  const payload = stripeSubscriptionEvent({
    eventId: "evt_TOKEVT000001",
    subscriptionId: "sub_TOKSUB000001",
    customerId: "cus_TOKCUS000001",
  });
  const tpl = JSON.stringify(payload);
  const subjects = extractSubjectIds(payload).join("|");
  const fill = (value: string) =>
    dsql`replace(replace(replace(${value}::text, 'TOKEVT000001', e), 'TOKSUB000001', s), 'TOKCUS000001', c)`;
  const headers = JSON.stringify({ "content-type": "application/json", "stripe-signature": "t=1,v1=00" });
  const rows = dsql.raw(String(ROWS));
  for (const q of ["set synchronous_commit = off", "set maintenance_work_mem = '512MB'"]) await sql.unsafe(q);
  const idx = await sql<{ indexname: string; indexdef: string }[]>`
    select indexname, indexdef from pg_indexes where tablename in ('webhook_event_body', 'webhook_event_state', 'webhook_delivery', 'webhook_attempt')
      and not exists (select 1 from pg_constraint c where c.conindid = format('%I.%I', schemaname, indexname)::regclass)`;
  for (const i of idx) await sql.unsafe(`drop index ${i.indexname}`);
  await seedEventsAt(
    urlOf(DB),
    "source, event_id, event_type, payload, raw_body, headers, status, attempts, received_at, settled_at, entity_type, " +
      "entity_id, entity_version, subject_ids, next_attempt_at, body_sha256",
    dsql`
     select 'stripe', 'evt_' || e, 'customer.subscription.updated', null, raw, ${headers}::jsonb, 'settled', 1, at,
            at + interval '40 ms', 'subscription', 'sub_' || s, extract(epoch from at)::bigint,
            string_to_array(${fill(subjects)}, '|'), at, encode(sha256(convert_to(raw, 'UTF8')), 'hex')
     from (
       select e, s, c, at, ${fill(tpl)} as raw
       from (
         select lpad(i::text, 12, '0') as e, 'B' || lpad((i % 50000)::text, 11, '0') as s,
                'B' || lpad((i % 40000)::text, 11, '0') as c,
                now() - interval '100 days' - (${rows} - i)::float8 / ${rows} * interval '30 days' as at
         from generate_series(1, ${rows}) i
       ) g
     ) r`,
  );
  await sql.unsafe(`
    insert into webhook_delivery (source, event_id, received_at, via, claimed)
    select source, event_id, received_at, 'provider', true from webhook_event
    union all
    select source, event_id, received_at + interval '3 minutes', 'provider', false from webhook_event where random() < 0.05
    order by 3`);
  await sql.unsafe(`
    insert into webhook_attempt (source, event_id, number, trigger, actor, started_at, finished_at, outcome)
    select source, event_id, 1, 'auto', 'worker-1', received_at + interval '10 ms', received_at + interval '40 ms', 'settled'
    from webhook_event`);
  await sql.unsafe(`
    insert into entity_transition (source, entity_type, entity_id, event_id, version, outcome, changes, recorded_at)
    select source, entity_type, entity_id, event_id, entity_version, 'applied', '{"status":{"from":"active","to":"past_due"}}', settled_at
    from webhook_event where right(event_id, 2) = '00'`);
  for (const i of idx) await sql.unsafe(i.indexdef);
  await sql.unsafe(
    "vacuum (analyze) webhook_event_state, webhook_event_body, webhook_delivery, webhook_attempt, entity_transition",
  );
  await sql.unsafe("checkpoint");
  return (performance.now() - t0) / 1000;
}

const TABLES = [
  "webhook_event_body",
  "webhook_event_state",
  "webhook_delivery",
  "webhook_attempt",
  "entity_transition",
  "webhook_tombstone",
];

async function sizes(sql: postgres.Sql): Promise<Map<string, { total: number; heap: number; indexes: number }>> {
  const rows = await sql<{ t: string; total: string; heap: string; indexes: string }[]>`
    select relname as t, pg_total_relation_size(oid)::text as total,
           (pg_relation_size(oid) + coalesce(pg_total_relation_size(nullif(reltoastrelid, 0)), 0))::text as heap,
           pg_indexes_size(oid)::text as indexes
    from pg_class where relname in ${sql(TABLES)} and relkind = 'r'`;
  return new Map(rows.map((r) => [r.t, { total: Number(r.total), heap: Number(r.heap), indexes: Number(r.indexes) }]));
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const srv = createServer().listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === "object" && addr ? resolve(addr.port) : reject(new Error("no port"))));
    });
  });

function start(args: string[], env: Record<string, string>): { child: ChildProcess; out: () => string } {
  let out = "";
  const child = spawn(args[0]!, args.slice(1), {
    env: { ...process.env, NODE_OPTIONS: "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const keep = (b: Buffer) => void (out = (out + b.toString()).slice(-20_000));
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  return { child, out: () => out };
}

interface Delivery extends PacedDelivery {
  id: string;
  late: boolean;
  sentAt?: number;
}
interface Window {
  p99: number;
  latencies: number[];
  non2xx: number;
  lateWrong: number;
}

let fresh = 0;
/** One window of the steady load: signed now (Stripe's tolerance is 300 s), one in ten a retry of a seeded event. */
async function window(port: number, seconds: number): Promise<Window> {
  const n = Math.ceil(RATE * seconds);
  const deliveries: Delivery[] = Array.from({ length: n }, (_, k) => {
    const late = k % 10 === 9;
    const id = late
      ? `evt_${String(1 + Math.floor(Math.random() * ROWS)).padStart(12, "0")}`
      : `evt_new_${(fresh++).toString(36)}`;
    const key = String(fresh % 5000).padStart(8, "0");
    const body = JSON.stringify(
      stripeSubscriptionEvent({ eventId: id, subscriptionId: `sub_1Bench${key}`, customerId: `cus_Bench${key}` }),
    );
    const d = signStripe(body, SECRET);
    return { id, late, headers: d.headers, body: Buffer.from(d.body) };
  });
  let next = 0;
  const latencies: number[] = [];
  let lateWrong = 0;
  const r = await pacedLoad({
    port,
    path: "/api/webhooks/stripe",
    rate: RATE,
    duration: seconds,
    connections: CONNECTIONS,
    next: () => Object.assign(deliveries[next++]!, { sentAt: performance.now() }),
    onResponse: (status, body, d) => {
      const del = d as Delivery;
      if (status >= 200 && status < 300) latencies.push(performance.now() - del.sentAt!);
      if (del.late && !body.includes('"duplicate":true')) lateWrong++;
    },
  });
  return { p99: r.latency.p99, latencies, non2xx: r.non2xx, lateWrong };
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * p))] ?? 0;
};
const summary = (ws: Window[]) => {
  const all = ws.flatMap((w) => w.latencies);
  return {
    n: all.length,
    p50: pct(all, 0.5),
    p99: pct(all, 0.99),
    worstWindowP99: Math.max(...ws.map((w) => w.p99)),
    non2xx: ws.reduce((a, w) => a + w.non2xx, 0),
    lateWrong: ws.reduce((a, w) => a + w.lateWrong, 0),
  };
};

async function main() {
  const admin = connect(ADMIN_URL);
  await admin.unsafe(`create database ${DB}`);
  const url = urlOf(DB);
  let receiver: ReturnType<typeof start> | undefined;
  let prune: ReturnType<typeof start> | undefined;
  const sql = connect(url);
  try {
    const [pg] = await admin<{ v: string }[]>`select current_setting('server_version') as v`;
    const cpu = /model name\s*:\s*(.*)/.exec(readFileSync("/proc/cpuinfo", "utf8"))?.[1] ?? os.cpus()[0]?.model;
    console.log(`machine: ${os.availableParallelism()} cores (${cpu}), node ${process.version}, PostgreSQL ${pg?.v}`);
    console.log(`load average before: ${load()}`);
    await migratePostgresUrl(url);
    console.log(`seeded ${ROWS.toLocaleString("en")} settled events in ${(await seed(sql)).toFixed(0)} s`);
    const before = await sizes(sql);

    const port = await freePort();
    receiver = start(["node_modules/.bin/tsx", "lib/cli/receiver.ts"], {
      DATABASE_URL: url,
      STRIPE_WEBHOOK_SECRET: SECRET,
      WORKER_MODE: "off",
      DEDUP_CACHE_URL: "",
      PORT: String(port),
      HOST: "127.0.0.1",
      LOG_LEVEL: "warn",
    });
    for (let t = Date.now(); ;) {
      if (
        await fetch(`http://127.0.0.1:${port}/api/health`).then(
          (r) => r.ok,
          () => false,
        )
      )
        break;
      if (Date.now() - t > 60_000 || receiver.child.exitCode !== null) throw new Error(`receiver: ${receiver.out()}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    await window(port, WINDOW); // warm-up: JIT, pools, prepared statements
    const baseline: Window[] = [];
    for (let i = 0; i < BASELINE_WINDOWS; i++) baseline.push(await window(port, WINDOW));

    const walStats = async () =>
      (
        await sql<{ lsn: string; timed: number; req: number }[]>`
          select pg_current_wal_lsn()::text as lsn, checkpoints_timed::int as timed, checkpoints_req::int as req
          from pg_stat_bgwriter`
      )[0]!;
    const wal0 = await walStats();
    prune = start(["node_modules/.bin/tsx", "lib/cli/prune.ts"], {
      DATABASE_URL: url,
      LEDGER_TUNING: JSON.stringify({
        RETENTION_BATCH_SIZE: BATCH,
        RETENTION_PAUSE_MS: PAUSE,
        RETENTION_DUTY_PERCENT: DUTY,
      }),
    });
    const exited = new Promise<number | null>((resolve) => prune!.child.on("close", (code) => resolve(code)));
    let done = false;
    void exited.then(() => (done = true));
    // Windows with the prune running and with it stopped (SIGSTOP: it holds no lock between its statements), in
    // A B B A order, so a drift of the shared machine falls on both sides of the comparison.
    const during: Window[] = [];
    const paused: Window[] = [];
    let runningMs = 0;
    for (let k = 0; !done; k++) {
      const run = [true, false, false, true][k % 4]!;
      prune.child.kill(run ? "SIGCONT" : "SIGSTOP");
      const w0 = performance.now();
      const w = await window(port, WINDOW);
      if (run) runningMs += performance.now() - w0;
      (run ? during : paused).push(w);
    }
    prune.child.kill("SIGCONT");
    const seconds = runningMs / 1000;
    if ((await exited) !== 0) throw new Error(`prune failed: ${prune.out()}`);
    const result = JSON.parse(prune.out().trim().split("\n").at(-1)!) as Record<string, number>;
    const wal1 = await walStats();
    const [walBytes] = await sql<{ b: string }[]>`select pg_wal_lsn_diff(${wal1.lsn}, ${wal0.lsn})::text as b`;
    const after: Window[] = [];
    for (let i = 0; i < BASELINE_WINDOWS; i++) after.push(await window(port, WINDOW));
    // What the prune dirtied is still being written out by the checkpointer: one more set of windows once it is done.
    await sql.unsafe("checkpoint");
    const afterCheckpoint: Window[] = [];
    for (let i = 0; i < BASELINE_WINDOWS; i++) afterCheckpoint.push(await window(port, WINDOW));
    const [stats] = await sql<{ dead: string; live: string; autovacuums: number }[]>`
      select n_dead_tup::text as dead, n_live_tup::text as live, autovacuum_count::int as autovacuums
      from pg_stat_user_tables where relname = 'webhook_event_body'`;
    const rightAfter = await sizes(sql);
    // The claims' tail after a large prune: measured while a plain VACUUM runs beside them, and after it.
    const v0 = performance.now();
    let vacuumed = false;
    const vacuum = sql.unsafe(`vacuum ${TABLES.join(", ")}`).then(() => {
      vacuumed = true;
    });
    const duringVacuum: Window[] = [];
    while (!vacuumed) duringVacuum.push(await window(port, WINDOW));
    await vacuum;
    const vacuumSeconds = (performance.now() - v0) / 1000;
    const afterVacuumWindows: Window[] = [];
    for (let i = 0; i < BASELINE_WINDOWS; i++) afterVacuumWindows.push(await window(port, WINDOW));
    const afterVacuum = await sizes(sql);
    const f0 = performance.now();
    await sql.unsafe(`vacuum full ${TABLES.join(", ")}`);
    const fullSeconds = (performance.now() - f0) / 1000;
    const afterFull = await sizes(sql);

    const [b, d, p, a, c, dv, av] = [
      summary(baseline),
      summary(during),
      summary(paused),
      summary(after),
      summary(afterCheckpoint),
      summary(duringVacuum),
      summary(afterVacuumWindows),
    ];
    console.log(`\nprune: ${JSON.stringify(result)}`);
    const perSecond = (n: number) => Math.round(n / seconds).toLocaleString("en");
    const rowsPruned =
      (result.events ?? 0) + (result.deliveries ?? 0) + (result.attempts ?? 0) + (result.transitions ?? 0);
    console.log(
      `pruned ${result.events?.toLocaleString("en")} events in ${seconds.toFixed(1)} s: ` +
        `${perSecond(result.events ?? 0)} events/s ` +
        `(${perSecond(rowsPruned)} rows/s with deliveries, attempts, timeline), ` +
        `counting only the time it was not stopped; batch ${BATCH}, pause ${PAUSE} ms, duty ${DUTY} %`,
    );
    console.log(
      `WAL written by the whole cluster while it ran (other databases' work included): ` +
        `${mb(walBytes?.b ?? 0)} MB; checkpoints: ${wal1.timed - wal0.timed} timed, ` +
        `${wal1.req - wal0.req} requested (max_wal_size)`,
    );
    console.log(`\nclaim latency at ${RATE} deliveries/s (10 % late retries of seeded events), ${WINDOW} s windows:`);
    console.log(`| phase | requests | p50 ms | p99 ms | worst window p99 ms | non-2xx | late retries not duplicate |`);
    console.log(`|---|---:|---:|---:|---:|---:|---:|`);
    for (const [label, s] of [
      ["before the prune (baseline)", b],
      ["prune running", d],
      ["prune stopped (interleaved with the above)", p],
      ["after the prune", a],
      ["after a CHECKPOINT", c],
      ["while a plain VACUUM runs", dv],
      ["after the VACUUM", av],
    ] as const)
      console.log(
        `| ${label} | ${s.n} | ${s.p50.toFixed(1)} | ${s.p99.toFixed(1)} | ${s.worstWindowP99} | ${s.non2xx} | ${s.lateWrong} |`,
      );
    const ratio = d.p99 / p.p99;
    const late = b.lateWrong + d.lateWrong + p.lateWrong + a.lateWrong + c.lateWrong + dv.lateWrong + av.lateWrong;
    console.log(
      `\nclaim p99 prune running / stopped: ${ratio.toFixed(2)}× (target ≤ 1.20×: ${ratio <= 1.2 ? "met" : "MISSED"}); ` +
        `running / before ${(d.p99 / b.p99).toFixed(2)}×; after / before ${(a.p99 / b.p99).toFixed(2)}×; ` +
        `after a checkpoint / before ${(c.p99 / b.p99).toFixed(2)}×; after a VACUUM / before ${(av.p99 / b.p99).toFixed(2)}×; ` +
        `late retries all answered duplicate: ${late === 0 ? "yes" : `NO (${late})`}`,
    );
    console.log(
      `\nwebhook_event right after the prune: ${stats?.live} live, ${stats?.dead} dead tuples, ` +
        `autovacuum ran ${stats?.autovacuums}×; ` +
        `plain VACUUM ${vacuumSeconds.toFixed(1)} s, VACUUM FULL ${fullSeconds.toFixed(1)} s`,
    );
    console.log(`\n| table | before MB (heap+toast / indexes) | right after | after VACUUM | after VACUUM FULL |`);
    console.log(`|---|---:|---:|---:|---:|`);
    const cell = (m: typeof before, t: string) => {
      const s = m.get(t);
      return s ? `${mb(s.total)} (${mb(s.heap)} / ${mb(s.indexes)})` : "—";
    };
    for (const t of TABLES)
      console.log(
        `| ${t} | ${cell(before, t)} | ${cell(rightAfter, t)} | ${cell(afterVacuum, t)} | ${cell(afterFull, t)} |`,
      );
    console.log(`\nload average after: ${load()}`);
  } finally {
    prune?.child.kill("SIGCONT");
    prune?.child.kill("SIGTERM");
    receiver?.child.kill("SIGTERM");
    await sql.end({ timeout: 5 });
    await new Promise((r) => setTimeout(r, 1000));
    if (KEEP) console.log(`kept ${DB}`);
    else await admin.unsafe(`drop database if exists ${DB} with (force)`);
    await admin.end({ timeout: 5 });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
