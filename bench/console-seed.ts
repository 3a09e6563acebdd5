/**
 * The database behind `npm run bench:console`: a fresh migrated database, seeded set-based from fixture
 * payloads whose ids are placeholders that SQL `replace()` fills per row (event, customer, object, email, name),
 * and the search directory those events would have given the worker.
 */
import { sql as dsql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import type { Db } from "@/db/client";
import { migratePostgresUrl } from "@/db/migrate";
import { DIRECTORY_ID_FIELDS, termFieldSql } from "@/lib/ledger/subject-terms";
import { extractSubjectIds } from "@/lib/ledger/subjects";
import { compactPayloads, fullPayloads, TOKEN, type Payloads } from "./console-payloads";
import { seedEvents } from "../test/seed-events";

export const ADMIN_URL = process.env.BENCH_ADMIN_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
export const connect = (url: string, max = 1) => postgres(url, { max, onnotice: () => {} });
export const urlOf = (db: string) => {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${db}`;
  return url.toString();
};

async function admin(statement: string): Promise<void> {
  const sql = connect(ADMIN_URL);
  try {
    await sql.unsafe(statement);
  } finally {
    await sql.end({ timeout: 5 });
  }
}

export async function createDb(name: string): Promise<string> {
  await admin(`create database ${name}`);
  await migratePostgresUrl(urlOf(name));
  return urlOf(name);
}

export const dropDb = (name: string) =>
  admin(`drop database if exists ${name} with (force)`).catch((err: unknown) =>
    console.error(`could not drop ${name}: ${String(err)}`),
  );

const { event: E, customer: C, object: O, email: MAIL, n1: N1, n2: N2 } = TOKEN;

interface Template {
  source: string;
  type: string;
  weight: number;
  body: string;
  subjects: string;
  entity_type: string;
  entity_id: string;
  evt: string;
  headers: string;
}

function templates(P: Payloads, compact: boolean): Template[] {
  const out: Template[] = [];
  const add = (
    source: string,
    type: string,
    weight: number,
    payload: Record<string, unknown>,
    entity: [string, string],
    evt: string,
    headers: Record<string, string>,
  ) => {
    const body = JSON.stringify(payload);
    out.push({
      source,
      type,
      weight,
      body,
      subjects: extractSubjectIds(payload).join("|"),
      entity_type: entity[0],
      entity_id: entity[1],
      evt,
      // Compact: the content type alone (the console reads headers only on the detail page).
      headers: JSON.stringify({ "content-type": "application/json", ...(compact ? {} : headers) }),
    });
  };
  const sh = {
    "user-agent": "Stripe/1.0 (+https://stripe.com/docs/webhooks)",
    "stripe-signature": "t=1712917129,v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd",
  };
  for (const [t, w] of [
    ["customer.subscription.updated", 18],
    ["customer.subscription.created", 5],
    ["customer.subscription.deleted", 2],
  ] as const)
    add("stripe", t, w, P.subscription(t), ["subscription", `sub_${C}`], "evt_", sh);
  for (const [t, w] of [
    ["invoice.paid", 15],
    ["invoice.finalized", 8],
    ["invoice.upcoming", 5],
    ["invoice.payment_failed", 3],
  ] as const)
    add("stripe", t, w, P.invoice(t), ["invoice", `in_${O}`], "evt_", sh);
  add("stripe", "customer.updated", 3.95, P.invoice("customer.updated"), ["customer", `cus_${C}`], "evt_", sh);
  add(
    "stripe",
    "charge.dispute.created",
    0.05,
    P.invoice("charge.dispute.created"),
    ["dispute", `in_${O}`],
    "evt_",
    sh,
  );
  const gh = (event: string) => ({
    "x-github-event": event,
    "x-github-delivery": "uuid",
    "x-hub-signature-256": "sha256=0b1f...",
    "user-agent": "GitHub-Hookshot/0d9f3c1",
  });
  for (const [a, w] of [
    ["opened", 4],
    ["synchronize", 6],
    ["closed", 2],
  ] as const)
    add("github", `pull_request.${a}`, w, P.pullRequest(a), ["pull_request", N1], "uuid", gh("pull_request"));
  add("github", "issues.opened", 3, P.issue(), ["issue", N1], "uuid", gh("issues"));
  const order = P.order();
  for (const [t, w] of [
    ["orders/create", 4],
    ["orders/updated", 4],
    ["orders/paid", 2],
  ] as const)
    add("shopify", t, w, order, ["order", N1], "uuid", {
      "x-shopify-topic": t,
      "x-shopify-hmac-sha256": "XWmrwMey6OsLMeiZKwP4FppHH3cmAiiJJAweH5Jo4bM=",
    });
  const ph = {
    "paddle-signature": "ts=1712917129;h1=eb4d0dc8853be92b7f063b9f3ba5233eb920a09459b6e6b2c26705b4364db151",
  };
  for (const [t, w] of [
    ["subscription.updated", 4],
    ["subscription.created", 1.5],
    ["transaction.completed", 2.5],
  ] as const)
    add("paddle", t, w, P.paddle(t), ["subscription", `sub_${C}`], "evt_", ph);
  const sl = {
    "x-slack-signature": "v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503",
    "x-slack-request-timestamp": "1712917129",
  };
  add("slack", "message", 4, P.slack("message"), ["channel", `C${O}`], "Ev", sl);
  add("slack", "reaction_added", 1, P.slack("reaction_added"), ["channel", `C${O}`], "Ev", sl);
  add("standard", "subscription.updated", 2, P.standard(), ["subscription", `sub_${O}`], "msg_", {
    "webhook-id": "msg",
    "webhook-signature": "v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDDX01r8=",
  });
  return out;
}

/** The per-row replace chain: e = event serial, c = customer serial, o = object serial, m = email, f/l = name. */
const FILLS = [
  [E, "e"],
  [C, "c"],
  [O, "o"],
  [MAIL, "m"],
  [N1, "n1"],
  [N2, "n2"],
  [TOKEN.first, "f"],
  [TOKEN.last, "l"],
] as const;
const fill = (expr: string) => FILLS.reduce((inner, [token, col]) => `replace(${inner}, '${token}', ${col})`, expr);

// Customer names: 60 × 80 pairs, so a full name is shared by about one customer in 4,800 (as real names are).
const FIRST =
  `Ada Aiko Amara Anders Ari Beatriz Bo Carmen Chen Dalia Dmitri Elif Emeka Erin Farah Felix Greta Hana Hugo Ines
  Ivan Jenny Jon Kaia Kenji Lena Leon Lucia Mateo Maya Mei Milan Nadia Nils Noor Oren Paula Priya Quinn Rafael Rosa Sami
  Sana Sofia Tariq Tess Theo Uma Vera Viktor Wanda Wen Xavier Yara Yusuf Zara Zoe Omar Ilse Kofi`.split(/\s+/);
const LAST =
  `Abbott Achebe Alvarez Andersen Bauer Becker Bianchi Brennan Castro Chowdhury Costa Dahl Diaz Dubois Eriksen Fischer
  Fontaine Garcia Gupta Haddad Hansen Horvat Ito Ivanova Jansen Kato Keller Kim Kowalski Larsen Lopez Moreau Muller
  Nakamura Novak Nunez Okafor Olsen Ortiz Park Patel Perez Petrov Quinn Ramos Rosen Rossi Sato Schmidt Silva Singh Smith
  Snow Suzuki Tanaka Torres Tran Ueda Varga Vogel Wagner Walsh Weber Wilson Wong Yamamoto Young Zhang Ziegler Zimmer
  Lindqvist Moretti Nguyen Oliveira Popescu Reyes Santos Lovelace`.split(/\s+/);
const nameSql = (cn: string) =>
  `(array['${FIRST.join("','")}'])[1 + ${cn} % ${FIRST.length}] as f, (array['${LAST.join("','")}'])[1 + (${cn} / ${FIRST.length}) % ${LAST.length}] as l`;

export interface SeedShape {
  rows: number;
  /** Share of settled rows (the issue's 90 %); the rest, beyond the backlog, is the dead pile. */
  settled: number;
  /** claimed + failed rows, all due: the worker's backlog. */
  pending: number;
  /** full: the lib/samples payloads (~1.9 KB); compact: the fields the ledger reads (~300 B). */
  payload?: "full" | "compact";
  /** received_at spreads over this many days (30: a month of a busy shop; 365 for 10M: a year of a large one). */
  days?: number;
}

/**
 * Seeds webhook_event and its deliveries, attempts and a few timelines; returns the seconds it took.
 * Rows are written in arrival order, as the receiver writes them: received_at follows the heap.
 */
export async function seedLedger(url: string, s: SeedShape): Promise<number> {
  const t0 = performance.now();
  const sql = connect(url);
  try {
    for (const q of ["set synchronous_commit = off", "set maintenance_work_mem = '512MB'", "select setseed(0.42)"])
      await sql.unsafe(q);
    // Secondary indexes are rebuilt after the load: one sort each instead of 1M random inserts.
    const idx = await sql<{ indexname: string; indexdef: string }[]>`
      select indexname, indexdef from pg_indexes where tablename in ('webhook_event_body', 'webhook_event_state', 'webhook_delivery', 'webhook_attempt') 
        and not exists (select 1 from pg_constraint c where c.conindid = format('%I.%I', schemaname, indexname)::regclass)`;
    for (const i of idx) await sql.unsafe(`drop index ${i.indexname}`);
    const compact = s.payload === "compact";
    const tpl = templates(compact ? compactPayloads : fullPayloads, compact);
    const total = tpl.reduce((a, t) => a + t.weight, 0);
    let acc = 0;
    const ranged = tpl.map((t) => ({ ...t, lo: acc / total, hi: (acc += t.weight) / total }));
    const step = Math.max(2, Math.floor(s.rows / s.pending));
    const customers = Math.max(10, Math.floor(s.rows / 20));
    const dead = Math.max(0, 1 - s.settled - (s.pending * 1.02) / s.rows);
    const raw = (text: string | number) => dsql.raw(String(text));
    // drizzle on this connection, where the seed (setseed) and the session's settings are: nothing reads a date
    // through `sql` after it (drizzle replaces the client's date parsers).
    await seedEvents(
      drizzle(sql) as unknown as Db,
      "source, event_id, event_type, payload, raw_body, headers, status, attempts, last_error, received_at, settled_at, " +
        "entity_type, entity_id, entity_version, subject_ids, next_attempt_at, lease_token, leased_at, leased_by, lease_expires_at",
      dsql`with g as (
         select i, random() as rt, random() as rs, floor(random() * ${raw(customers)})::int as cn,
                (${raw(s.rows)} - i)::float8 / ${raw(s.rows)} * interval '${raw(s.days ?? 30)} days' + random() * interval '1 minute' as age
         from generate_series(1, ${raw(s.rows)}) i
       ), r as (
         select g.*, t.*, lpad(i::text, 11, '0') as e, 'B' || lpad(cn::text, 9, '0') as c, 'B' || lpad(i::text, 10, '0') as o,
                'user' || cn || '@example.com' as m, (5000000000 + i)::text as n1, (7000000000 + cn)::text as n2, ${raw(nameSql("cn"))},
                case when i % ${raw(step)} = 0 then (case when (i / ${raw(step)}) % 2 = 0 then 'claimed' else 'failed' end)
                     when i % ${raw(step)} = 1 and (i / ${raw(step)}) % 50 = 0 then 'processing'
                     when rs < ${raw(dead)} then 'dead' else 'settled' end as st
         from g join jsonb_to_recordset(${JSON.stringify(ranged)}::text::jsonb) as t(source text, type text, lo float8, hi float8, body text, subjects text,
                entity_type text, entity_id text, evt text, headers text) on g.rt >= t.lo and g.rt < t.hi
       ), b as (
         select r.*, ${raw(fill("body"))} as raw, case st when 'claimed' then now() - age / 8640 when 'failed' then now() - age / 120
                when 'processing' then now() - age / 86400 else now() - age end as at
         from r
       )
       select source, case evt when 'uuid' then md5(source || i)::uuid::text else evt || e end, type, null, raw, headers::jsonb, st,
         case st when 'settled' then 1 when 'claimed' then 0 when 'dead' then 8 else 1 + i % 3 end,
         case when st in ('failed', 'dead') then 'handler: upstream 503 from billing service (timeout after 10000 ms)' end,
         at, case when st = 'settled' then at + interval '40 ms' end, entity_type, ${raw(fill("entity_id"))},
         extract(epoch from at)::bigint, string_to_array(${raw(fill("subjects"))}, '|'),
         case st when 'failed' then now() - random() * interval '10 minutes' else at end,
         case when st = 'processing' then gen_random_uuid() end, case when st = 'processing' then now() end,
         case when st = 'processing' then 'bench-worker' end, case when st = 'processing' then now() + interval '30 s' end
       from b`,
    );
    await sql.unsafe(`
      insert into webhook_delivery (source, event_id, received_at, via, claimed)
      select source, event_id, received_at, 'provider', true from webhook_event
      union all
      select source, event_id, received_at + random() * interval '10 minutes', 'provider', false from webhook_event where random() < 0.05
      order by 3`);
    await sql.unsafe(`
      insert into webhook_attempt (source, event_id, number, trigger, actor, started_at, finished_at, outcome, error)
      select source, event_id, n, 'auto', 'worker-1', received_at + n * interval '30 ms', received_at + n * interval '30 ms' + interval '8 ms',
             case when status = 'settled' then 'settled' else 'failed' end, last_error
      from webhook_event, generate_series(1, attempts) n where status <> 'processing'`);
    // Timelines for 1 % of Stripe subscriptions: every settled event of theirs applied, in arrival order.
    await sql.unsafe(`
      insert into entity_transition (source, entity_type, entity_id, event_id, version, outcome, changes, recorded_at)
      select source, entity_type, entity_id, event_id, entity_version, 'applied', '{"status":{"from":"active","to":"past_due"}}', settled_at
      from webhook_event where source = 'stripe' and entity_type = 'subscription' and status = 'settled' and right(entity_id, 2) = '00'
      order by received_at`);
    await sql.unsafe(`
      insert into entity_version (source, entity_type, entity_id, version, event_id, updated_at)
      select distinct on (source, entity_type, entity_id) source, entity_type, entity_id, version, event_id, recorded_at
      from entity_transition order by source, entity_type, entity_id, version desc`);
    for (const i of idx) await sql.unsafe(i.indexdef);
    await seedTerms(sql, customers);
    await sql.unsafe(
      "vacuum (analyze) webhook_event_state, webhook_event_body, webhook_delivery, webhook_attempt, entity_transition, entity_version, subject_term",
    );
    return (performance.now() - t0) / 1000;
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/**
 * The search directory the worker would have written for these events (lib/ledger/subject-terms.ts): each
 * customer id, email and subscription id once, each customer's name and last name for its Stripe and Shopify
 * ids. (The worker's JS side also labels Shopify customer ids and GitHub logins; the seed leaves those out.)
 * Keys built after.
 */
async function seedTerms(sql: postgres.Sql, customers: number): Promise<void> {
  await sql.unsafe("alter table subject_term drop constraint subject_term_term_subject_pk");
  await sql.unsafe("drop index subject_term_subject_idx");
  await sql.unsafe("set work_mem = '256MB'");
  await sql.unsafe(`
    insert into subject_term (term, subject, field, value)
    select lower(s), s, ${termFieldSql("s")}, s from (select distinct unnest(subject_ids) as s from webhook_event) x
    where ${termFieldSql("s")} in (${DIRECTORY_ID_FIELDS.map((f) => `'${f}'`).join(", ")})`);
  await sql.unsafe(`
    insert into subject_term (term, subject, field, value)
    select v.term, k.subject, 'name', c.f || ' ' || c.l
    from (select cn, ${nameSql("cn")} from generate_series(0, ${customers - 1}) cn) c
    cross join lateral (values (lower(c.f || ' ' || c.l)), (lower(c.l))) as v(term)
    cross join lateral (values ('cus_B' || lpad(c.cn::text, 9, '0')), ((7000000000 + c.cn)::text)) as k(subject)`);
  await sql.unsafe("reset work_mem");
  await sql.unsafe("alter table subject_term add constraint subject_term_term_subject_pk primary key (term, subject)");
  await sql.unsafe("create index subject_term_subject_idx on subject_term (subject)");
}

/** The name the seed gives customer `cn` (cn → FIRST × LAST), for the benchmark's name searches. */
export const customerName = (cn: number): string =>
  `${FIRST[cn % FIRST.length]} ${LAST[Math.floor(cn / FIRST.length) % LAST.length]}`;
