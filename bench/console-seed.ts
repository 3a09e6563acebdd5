/**
 * The database behind `npm run bench:console`: a fresh migrated database, seeded set-based from fixture
 * payloads whose ids are placeholders that SQL `replace()` fills per row (event, customer, object, email).
 */
import postgres from "postgres";
import { migratePostgresUrl } from "@/db/migrate";
import { extractSubjectIds } from "@/lib/ledger/subjects";
import { githubIssuesOpened, githubPullRequestEvent } from "@/lib/samples/github";
import { paddleSubscriptionEvent } from "@/lib/samples/paddle";
import { shopifyOrder } from "@/lib/samples/shopify";
import { slackEventCallback } from "@/lib/samples/slack";
import { standardEvent } from "@/lib/samples/standard";
import { stripeInvoicePaidEvent, stripeSubscriptionEvent } from "@/lib/samples/stripe";

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

// Placeholders: suffixes that keep each id matching lib/ledger/subjects.ts, so the template's subjects are the row's.
const E = "TOKEVT00001",
  C = "TOKCUS00001",
  O = "TOKOBJ00001",
  MAIL = "tokmail00001@example.com",
  N1 = "9990000001",
  N2 = "9990000002";

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

function templates(): Template[] {
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
      headers: JSON.stringify({ "content-type": "application/json", ...headers }),
    });
  };
  const withType = <T extends Record<string, unknown>>(p: T, key: string, type: string) => ({ ...p, [key]: type });
  const sh = {
    "user-agent": "Stripe/1.0 (+https://stripe.com/docs/webhooks)",
    "stripe-signature": "t=1712917129,v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd",
  };
  const sub = (
    type: "customer.subscription.created" | "customer.subscription.updated" | "customer.subscription.deleted",
  ) => stripeSubscriptionEvent({ type, eventId: `evt_${E}`, subscriptionId: `sub_${C}`, customerId: `cus_${C}` });
  const inv = stripeInvoicePaidEvent({
    eventId: `evt_${E}`,
    invoiceId: `in_${O}`,
    customerId: `cus_${C}`,
    customerEmail: MAIL,
    subscriptionId: `sub_${C}`,
  });
  for (const [t, w] of [
    ["customer.subscription.updated", 18],
    ["customer.subscription.created", 5],
    ["customer.subscription.deleted", 2],
  ] as const)
    add("stripe", t, w, sub(t), ["subscription", `sub_${C}`], "evt_", sh);
  for (const [t, w] of [
    ["invoice.paid", 15],
    ["invoice.finalized", 8],
    ["invoice.upcoming", 5],
    ["invoice.payment_failed", 3],
  ] as const)
    add("stripe", t, w, withType(inv, "type", t), ["invoice", `in_${O}`], "evt_", sh);
  add(
    "stripe",
    "customer.updated",
    3.95,
    withType(inv, "type", "customer.updated"),
    ["customer", `cus_${C}`],
    "evt_",
    sh,
  );
  add(
    "stripe",
    "charge.dispute.created",
    0.05,
    withType(inv, "type", "charge.dispute.created"),
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
  const author = { login: `dev${C}`, id: Number(N2) };
  for (const [a, w] of [
    ["opened", 4],
    ["synchronize", 6],
    ["closed", 2],
  ] as const)
    add(
      "github",
      `pull_request.${a}`,
      w,
      githubPullRequestEvent({ action: a, pullRequestId: Number(N1), author }),
      ["pull_request", N1],
      "uuid",
      gh("pull_request"),
    );
  add(
    "github",
    "issues.opened",
    3,
    githubIssuesOpened({ issueId: Number(N1), author }),
    ["issue", N1],
    "uuid",
    gh("issues"),
  );
  const order = shopifyOrder({ id: Number(N1), customerId: Number(N2), email: MAIL, customerEmail: MAIL });
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
    add(
      "paddle",
      t,
      w,
      paddleSubscriptionEvent({
        eventId: `evt_${E}`,
        eventType: t,
        subscriptionId: `sub_${C}`,
        customerId: `ctm_${C}`,
      }),
      ["subscription", `sub_${C}`],
      "evt_",
      ph,
    );
  const slack = slackEventCallback({ eventId: `Ev${E}`, channel: `C${O}`, user: `U${C}` });
  const sl = {
    "x-slack-signature": "v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503",
    "x-slack-request-timestamp": "1712917129",
  };
  add("slack", "message", 4, slack, ["channel", `C${O}`], "Ev", sl);
  add(
    "slack",
    "reaction_added",
    1,
    {
      ...slack,
      event: {
        type: "reaction_added",
        user: `U${C}`,
        reaction: "thumbsup",
        item: { type: "message", channel: `C${O}`, ts: "1712917129.000200" },
        event_ts: "1712917130.000300",
      },
    },
    ["channel", `C${O}`],
    "Ev",
    sl,
  );
  add(
    "standard",
    "subscription.updated",
    2,
    standardEvent({ id: `sub_${O}`, customerId: `cus_${C}`, email: MAIL }),
    ["subscription", `sub_${O}`],
    "msg_",
    { "webhook-id": "msg", "webhook-signature": "v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDDX01r8=" },
  );
  return out;
}

/** The per-row replace chain: e = event serial, c = customer serial, o = object serial, m = email. */
const fill = (expr: string) =>
  `replace(replace(replace(replace(replace(replace(${expr}, '${E}', e), '${C}', c), '${O}', o), '${MAIL}', m), '${N1}', n1), '${N2}', n2)`;

export interface SeedShape {
  rows: number;
  /** Share of settled rows (the issue's 90 %); the rest, beyond the backlog, is the dead pile. */
  settled: number;
  /** claimed + failed rows, all due: the worker's backlog. */
  pending: number;
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
      select indexname, indexdef from pg_indexes where tablename in ('webhook_event', 'webhook_delivery', 'webhook_attempt') 
        and not exists (select 1 from pg_constraint c where c.conindid = format('%I.%I', schemaname, indexname)::regclass)`;
    for (const i of idx) await sql.unsafe(`drop index ${i.indexname}`);
    const tpl = templates();
    const total = tpl.reduce((a, t) => a + t.weight, 0);
    let acc = 0;
    const ranged = tpl.map((t) => ({ ...t, lo: acc / total, hi: (acc += t.weight) / total }));
    const step = Math.max(2, Math.floor(s.rows / s.pending));
    const customers = Math.max(10, Math.floor(s.rows / 20));
    const dead = Math.max(0, 1 - s.settled - (s.pending * 1.02) / s.rows);
    await sql.unsafe(
      `with g as (
         select i, random() as rt, random() as rs, floor(random() * ${customers})::int as cn, (${s.rows} - i)::float8 / ${s.rows} * interval '30 days' + random() * interval '1 minute' as age
         from generate_series(1, ${s.rows}) i
       ), r as (
         select g.*, t.*, lpad(i::text, 11, '0') as e, 'B' || lpad(cn::text, 9, '0') as c, 'B' || lpad(i::text, 10, '0') as o,
                'user' || cn || '@example.com' as m, (5000000000 + i)::text as n1, (7000000000 + cn)::text as n2,
                case when i % ${step} = 0 then (case when (i / ${step}) % 2 = 0 then 'claimed' else 'failed' end)
                     when i % ${step} = 1 and (i / ${step}) % 50 = 0 then 'processing'
                     when rs < ${dead} then 'dead' else 'settled' end as st
         from g join jsonb_to_recordset($1::text::jsonb) as t(source text, type text, lo float8, hi float8, body text, subjects text,
                entity_type text, entity_id text, evt text, headers text) on g.rt >= t.lo and g.rt < t.hi
       ), b as (
         select r.*, ${fill("body")} as raw, case st when 'claimed' then now() - age / 8640 when 'failed' then now() - age / 120
                when 'processing' then now() - age / 86400 else now() - age end as at
         from r
       )
       insert into webhook_event (source, event_id, event_type, payload, raw_body, headers, status, attempts, last_error, received_at,
         settled_at, entity_type, entity_id, entity_version, subject_ids, next_attempt_at, lease_token, leased_at, leased_by, lease_expires_at)
       select source, case evt when 'uuid' then md5(source || i)::uuid::text else evt || e end, type, raw::jsonb, raw, headers::jsonb, st,
         case st when 'settled' then 1 when 'claimed' then 0 when 'dead' then 8 else 1 + i % 3 end,
         case when st in ('failed', 'dead') then 'handler: upstream 503 from billing service (timeout after 10000 ms)' end,
         at, case when st = 'settled' then at + interval '40 ms' end, entity_type, ${fill("entity_id")},
         extract(epoch from at)::bigint, string_to_array(${fill("subjects")}, '|'),
         case st when 'failed' then now() - random() * interval '10 minutes' else at end,
         case when st = 'processing' then gen_random_uuid() end, case when st = 'processing' then now() end,
         case when st = 'processing' then 'bench-worker' end, case when st = 'processing' then now() + interval '30 s' end
       from b`,
      [JSON.stringify(ranged)],
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
    await sql.unsafe(
      "vacuum (analyze) webhook_event, webhook_delivery, webhook_attempt, entity_transition, entity_version",
    );
    return (performance.now() - t0) / 1000;
  } finally {
    await sql.end({ timeout: 5 });
  }
}
