/**
 * Databases for `npm run bench:worker`: one fresh database per scenario, the 50,000-event seed, the
 * "is anything still pending" probe and the after-drain checks.
 */
import { readFileSync } from "node:fs";
import os from "node:os";
import postgres from "postgres";
import { migratePostgresUrl } from "@/db/migrate";
import { extractSubjectIds } from "@/lib/ledger/subjects";
import { stripeSubscriptionEvent } from "@/lib/samples/stripe";
import { cpuSeconds } from "./worker-procs";

export const ADMIN_URL = process.env.BENCH_ADMIN_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const STAMP = Date.now();
let serial = 0;
const created = new Set<string>();

export const urlOf = (db: string) => {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${db}`;
  return url.toString();
};
export const connect = (url: string, max = 1) => postgres(url, { max, onnotice: () => {} });
export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

async function adminRun(statement: string): Promise<void> {
  const admin = connect(ADMIN_URL);
  try {
    await admin.unsafe(statement);
  } finally {
    await admin.end({ timeout: 5 });
  }
}

async function dropDb(name: string): Promise<void> {
  created.delete(name);
  await adminRun(`drop database if exists ${name} with (force)`).catch((err: unknown) =>
    console.error(`  could not drop ${name}: ${String(err)}`),
  );
}

/** A fresh, migrated database `<prefix>_<ts>_<n>`, dropped afterwards whatever happens. */
export async function withFreshDb<T>(
  fn: (url: string, name: string) => Promise<T>,
  prefix = "ledger_bench_w",
): Promise<T> {
  const name = `${prefix}_${STAMP}_${++serial}`;
  await adminRun(`create database ${name}`);
  created.add(name);
  try {
    await migratePostgresUrl(urlOf(name));
    return await fn(urlOf(name), name);
  } finally {
    await dropDb(name);
  }
}

/** For an interrupted run: drop whatever is left. */
export async function dropAllCreated(): Promise<void> {
  for (const name of [...created]) await dropDb(name);
}

/** `N` events arrive over N/10 subscriptions (10 versions each); both mappings are multiplicative hashes. */
export function seedShape(n: number) {
  const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
  const coprime = (candidates: number[]) => candidates.find((p) => gcd(p, n) === 1) ?? 1;
  return {
    subs: Math.max(1, Math.ceil(n / 10)),
    pSub: coprime([7919, 7927, 7933]),
    pVer: coprime([104_729, 104_723, 104_717]),
  };
}

const T = {
  evt: "evt_1BenchTmplEvent000",
  sub: "sub_1BenchTmplSub00",
  cus: "cus_BenchTmplCus00",
  created: 1_111_111_111,
};

/**
 * Seeds `n` claimed `customer.subscription.updated` events in one statement: a ≈2 KB fixture payload is
 * the template; event id, subscription, customer, status and event.created (the version) vary per row.
 * Arrival order (received_at, next_attempt_at) and version order disagree, so many events are stale.
 */
export async function seedClaimed(url: string, n: number): Promise<void> {
  const template = JSON.stringify(
    stripeSubscriptionEvent({ eventId: T.evt, subscriptionId: T.sub, customerId: T.cus, created: T.created }),
  );
  const periodEnd = String(T.created + 2_592_000);
  const count = (s: string) => template.split(s).length - 1;
  if (count(String(T.created)) !== 2 || count(periodEnd) !== 1 || count('"status":"active"') !== 1)
    throw new Error("the Stripe fixture changed shape: update the seed's placeholders");
  const subjects = extractSubjectIds(JSON.parse(template));
  const { subs, pSub, pVer } = seedShape(n);
  const sql = connect(url);
  try {
    await sql`
      with g as (
        select i, (i::bigint * ${pSub}) % ${n} as h_sub, (i::bigint * ${pVer}) % ${n} as h_ver
        from generate_series(0, ${n}::int - 1) i
      ), r as (
        select i,
          'evt_1BenchW' || lpad(i::text, 9, '0') as evt,
          lpad((h_sub % ${subs})::text, 7, '0') as k,
          1700000000 + h_ver as ver,
          case when h_ver % 7 = 0 then 'past_due' else 'active' end as st
        from g
      ), b as (
        select r.*, 'sub_1BenchW' || k as sub, 'cus_BenchW' || k as cus,
          replace(replace(replace(replace(replace(replace(${template}::text,
            ${T.evt}, evt), ${T.sub}, 'sub_1BenchW' || k), ${T.cus}, 'cus_BenchW' || k),
            ${periodEnd}, (ver + 2592000)::text), ${String(T.created)}, ver::text),
            '"status":"active"', '"status":"' || st || '"') as body
        from r
      )
      , body as (
        insert into webhook_event_body (source, event_id, payload, raw_body, headers, entity_type, entity_id,
                                        entity_version, subject_ids)
        select 'stripe', evt, null, body, '{}'::jsonb, 'subscription', sub, ver,
          array_replace(array_replace(array_replace(string_to_array(${subjects.join(",")}::text, ','), ${T.evt}, evt), ${T.sub}, sub), ${T.cus}, cus)
        from b
      )
      insert into webhook_event_state (source, event_id, event_type, status, received_at, next_attempt_at)
      select 'stripe', evt, 'customer.subscription.updated', 'claimed',
        now() - (${n}::int - i) * interval '1 millisecond', now() - (${n}::int - i) * interval '1 millisecond'
      from r`;
    await settleDb(sql, ["webhook_event_body", "webhook_event_state"]);
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** Same starting line for every scenario: fresh statistics, no pending checkpoint. */
export async function settleDb(sql: postgres.Sql, tables: string[]): Promise<void> {
  for (const t of tables) await sql.unsafe(`vacuum (analyze) ${t}`);
  await sql.unsafe("checkpoint");
}

/** True while any ledger event is claimed, failed or processing (both partial indexes; cheap). */
export async function ledgerBusy(sql: postgres.Sql): Promise<boolean> {
  const [row] = await sql<{ busy: boolean }[]>`
    select exists (select 1 from webhook_event where status in ('claimed', 'failed'))
        or exists (select 1 from webhook_event where status = 'processing') as busy`;
  return row?.busy ?? true;
}

/**
 * Polls every 100 ms until `busy()` is false; `check` throws when a child died; `onPoll` samples
 * (CPU) on each round; gives up after `timeoutMs`.
 */
export async function waitIdle(
  busy: () => Promise<boolean>,
  opts: { timeoutMs?: number; check?: () => void; onPoll?: () => Promise<void> } = {},
): Promise<number> {
  const until = Date.now() + (opts.timeoutMs ?? 600_000);
  for (;;) {
    await opts.onPoll?.();
    if (!(await busy())) return performance.now();
    opts.check?.();
    if (Date.now() > until) throw new Error("still busy after the timeout");
    await sleep(100);
  }
}

/**
 * CPU used by the client backends serving one database (not `sql`'s own): their pids come from
 * pg_stat_activity, their CPU from /proc (Postgres runs on this machine). Backends opened for the run
 * are counted for their whole life, so call `sample()` often and read `seconds()` before they close.
 */
export function backendCpu(sql: postgres.Sql, dbName: string) {
  const last = new Map<number, number>();
  return {
    async sample() {
      const rows = await sql<{ pid: number }[]>`
        select pid from pg_stat_activity
        where datname = ${dbName} and backend_type = 'client backend' and pid <> pg_backend_pid()`;
      for (const { pid } of rows) {
        const s = cpuSeconds(pid);
        if (s !== undefined) last.set(pid, s);
      }
    },
    seconds: () => [...last.values()].reduce((a, b) => a + b, 0),
  };
}

export interface LedgerCheck {
  events: number;
  applied: number;
  stale: number;
  failedAttempts: number;
  /** pg_stat_database.deadlocks for the run's database (counted once the backends have exited). */
  deadlocks: number;
  problems: string[];
}

/** The worker's "batch of N rolled back (…); retrying one by one" lines, with the first reason. */
export function rollbackNote(workerOutput: string): string[] {
  const rollbacks = workerOutput.match(/rolled back/g)?.length ?? 0;
  if (rollbacks === 0) return [];
  const code = /\(([0-9A-Z]{5})\)\); retrying/.exec(workerOutput)?.[1] ?? "?";
  return [`${rollbacks} batch(es) rolled back, retried one by one (worker logged ${code})`];
}

export const deadlockNote = (check: LedgerCheck) =>
  check.deadlocks > 0 ? [`${check.deadlocks} deadlock(s) in pg_stat_database`] : [];

/** Every event settled, one non-failed attempt each, a timeline row each, every subscription at its newest version. */
export async function verifyLedger(url: string): Promise<LedgerCheck> {
  const sql = connect(url);
  try {
    const [r] = await sql<Record<string, number>[]>`
      select
        (select count(*)::int from webhook_event) as events,
        (select count(*)::int from webhook_event where status = 'settled') as settled,
        (select count(*)::int from webhook_attempt where outcome <> 'failed') as ok_attempts,
        (select count(distinct (source, event_id))::int from webhook_attempt where outcome <> 'failed') as ok_events,
        (select count(*)::int from webhook_attempt where outcome = 'failed') as failed_attempts,
        (select count(*)::int from entity_transition) as transitions,
        (select count(*)::int from entity_transition where outcome = 'applied') as applied,
        (select count(distinct entity_id)::int from webhook_event) as entities,
        (select count(*)::int from subscription) as subs,
        (select deadlocks::int from pg_stat_database where datname = current_database()) as deadlocks,
        (select count(*)::int from (
           select distinct on (entity_id) entity_id, entity_version, event_id from webhook_event
           order by entity_id, entity_version desc) newest
         left join subscription s on s.source = 'stripe' and s.external_id = newest.entity_id
         where s.version is distinct from newest.entity_version or s.updated_by_event is distinct from newest.event_id) as wrong_subs`;
    if (!r) throw new Error("verification query returned nothing");
    const n = r.events!;
    const expect: [string, number, number][] = [
      ["settled events", r.settled!, n],
      ["non-failed attempts", r.ok_attempts!, n],
      ["events with a non-failed attempt", r.ok_events!, n],
      ["timeline rows", r.transitions!, n],
      ["subscription rows", r.subs!, r.entities!],
      ["subscriptions not at their newest version", r.wrong_subs!, 0],
    ];
    const problems = expect
      .filter(([, got, want]) => got !== want)
      .map(([what, got, want]) => `${what}: ${got}, expected ${want}`);
    return {
      events: n,
      applied: r.applied!,
      stale: r.transitions! - r.applied!,
      failedAttempts: r.failed_attempts!,
      deadlocks: r.deadlocks ?? 0,
      problems,
    };
  } finally {
    await sql.end({ timeout: 5 });
  }
}

export async function machineLine(): Promise<string> {
  const sql = connect(ADMIN_URL);
  try {
    const [pg] = await sql<{ v: string }[]>`select current_setting('server_version') as v`;
    const cpu = /model name\s*:\s*(.*)/.exec(readFileSync("/proc/cpuinfo", "utf8"))?.[1] ?? os.cpus()[0]?.model ?? "?";
    return `${os.availableParallelism()} cores (${cpu}), ${Math.round(os.totalmem() / 2 ** 30)} GiB, node ${process.version}, PostgreSQL ${pg?.v}`;
  } finally {
    await sql.end({ timeout: 5 });
  }
}
