/**
 * The queries behind each console page, as calls to the real lib functions, and how they are measured:
 * wall time through the production client (prepared statements), then EXPLAIN ANALYZE of the SQL that
 * drizzle sent, captured by a logger on a second connection, inside a transaction that is rolled back.
 */
import { sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/postgres-js";
import type postgres from "postgres";
import { rowsOf, type Db } from "@/db/client";
import * as schema from "@/db/schema";
import type { Actor } from "@/lib/roles";
import { getEntityTimeline } from "@/lib/console/entity-timeline";
import { getEventDetail } from "@/lib/console/event-detail";
import { leaseDue } from "@/lib/ledger/lease";
import { encodeCursor, listEvents, type ListEventsInput } from "@/lib/console/list-events";
import { getBacklog, getFailingTypes, getStatusCounts, listDeadEvents } from "@/lib/console/overview";
import { countRequeueable } from "@/lib/console/requeue-matching";
import { getDeliverySeries } from "@/lib/console/delivery-series";
import { buildDisputeBundle } from "@/lib/console/dispute-bundle";
import { listFailureGroups } from "@/lib/console/failure-groups";
import { getSubjectView } from "@/lib/console/subject";
import { recordSubjectTerms } from "@/lib/ledger/subject-terms";
import { listOpenTies } from "@/lib/console/ties";
import { getRetentionPreview } from "@/lib/retention/preview";
import type { RetentionSettings } from "@/lib/retention/settings";
import { seedEvents } from "../test/seed-events";
import { customerName } from "./console-seed";
import type { ProviderKind } from "@/lib/providers/types";

const actor: Actor = { id: "bench", email: "bench@example.com", role: "ops" };

export interface Case {
  name: string;
  /** Returns the rows the page gets. Runs inside a rolled-back transaction when `mutates`. */
  run: (db: Db) => Promise<number>;
  mutates?: boolean;
}

export interface Picks {
  deepCursor: string;
  customer: string;
  email: string;
  event: { source: ProviderKind; eventId: string };
  entity: { source: ProviderKind; entityType: string; entityId: string };
  dayFrom: string;
  dayTo: string;
  /** Prefixes: of ten customer ids, of many (the directory's cap applies), of eleven emails, of a name. */
  idPrefix: string;
  widePrefix: string;
  emailPrefix: string;
  namePrefix: string;
  lastName: string;
}

const CUSTOMER = 1234;
const retention: RetentionSettings = {
  retentionDays: 90,
  tombstoneDays: 400,
  replayDays: 90,
  auditDays: 365,
  batchSize: 1000,
  pauseMs: 0,
  dutyPercent: 100,
  snapshotWaitMs: 2000,
};
const noSources = async () => undefined;

/** Keys the cases need from the seeded data: a mid-history cursor, a customer, an event, a timeline. */
export async function pick(sql: postgres.Sql, rows: number): Promise<Picks> {
  const [mid] = await sql<{ ts: string; source: string; event_id: string }[]>`
    select received_at::text as ts, source, event_id from webhook_event
    order by received_at desc, event_id desc, source desc offset ${Math.floor(rows / 2)} limit 1`;
  const [ev] = await sql<
    { source: ProviderKind; event_id: string }[]
  >`select source, event_id from webhook_event where status = 'dead' and source = 'stripe' limit 1`;
  const [en] = await sql<{ source: ProviderKind; entity_type: string; entity_id: string }[]>`
    select source, entity_type, entity_id from entity_transition group by 1, 2, 3 order by count(*) desc limit 1`;
  if (!mid || !ev || !en) throw new Error("the seed lacks a mid-history row, a dead event or a timeline");
  const day = 86_400_000;
  const name = customerName(CUSTOMER);
  return {
    deepCursor: encodeCursor([mid.ts, mid.source, mid.event_id]),
    customer: `cus_B${String(CUSTOMER).padStart(9, "0")}`,
    email: `user${CUSTOMER}@example.com`,
    event: { source: ev.source, eventId: ev.event_id },
    entity: { source: en.source, entityType: en.entity_type, entityId: en.entity_id },
    dayFrom: new Date(Date.now() - 8 * day).toISOString(),
    dayTo: new Date(Date.now() - 7 * day).toISOString(),
    idPrefix: `cus_B${String(CUSTOMER).padStart(9, "0").slice(0, -1)}`,
    widePrefix: "cus_B0000",
    emailPrefix: `USER${CUSTOMER}`,
    namePrefix: `${name.split(" ")[0]} ${name.split(" ")[1]!.slice(0, 3)}`.toLowerCase(),
    lastName: name.split(" ")[1]!,
  };
}

export function cases(p: Picks): Case[] {
  const list = (name: string, input: ListEventsInput): Case => ({
    name,
    run: async (db) => (await listEvents(db, actor, input)).rows.length,
  });
  const deep = { cursor: p.deepCursor };
  return [
    list("events: first page", {}),
    list("events: first page, oldest first", { sort: "received_asc" }),
    list("events: deep page (mid-history cursor)", deep),
    list("events: deep page, back", { ...deep, back: true }),
    list("events: source=stripe (60 %)", { filter: { source: ["stripe"] } }),
    list("events: source=standard (2 %)", { filter: { source: ["standard"] } }),
    list("events: source=standard, deep page", { filter: { source: ["standard"] }, ...deep }),
    list("events: type=invoice.paid (15 %)", { filter: { type: ["invoice.paid"] } }),
    list("events: type=charge.dispute.created (0.05 %)", { filter: { type: ["charge.dispute.created"] } }),
    list("events: rare type, deep page", { filter: { type: ["charge.dispute.created"] }, ...deep }),
    list("events: status=dead (≈10 %)", { filter: { status: ["dead"] } }),
    list("events: status=failed (500, recent)", { filter: { status: ["failed"] } }),
    list("events: status=failed, oldest first", { filter: { status: ["failed"] }, sort: "received_asc" }),
    list("events: stripe+invoice.payment_failed+dead", {
      filter: { source: ["stripe"], type: ["invoice.payment_failed"], status: ["dead"] },
    }),
    list("events: one-day window a week ago", { filter: { from: p.dayFrom, to: p.dayTo } }),
    list("events: search customer id", { filter: { q: p.customer } }),
    list("events: search email", { filter: { q: p.email } }),
    list("events: search event id", { filter: { q: p.event.eventId } }),
    list("events: search id prefix (10 customers)", { filter: { q: p.idPrefix } }),
    list("events: search id prefix (50-term cap)", { filter: { q: p.widePrefix } }),
    list("events: search email prefix (11 emails)", { filter: { q: p.emailPrefix } }),
    list("events: search name prefix", { filter: { q: p.namePrefix } }),
    list("events: search last name", { filter: { q: p.lastName } }),
    list("events: search id prefix + status=dead", { filter: { q: p.widePrefix, status: ["dead"] } }),
    {
      name: "overview: getStatusCounts",
      run: async (db) => Object.keys((await getStatusCounts(db, actor)).counts).length,
    },
    // What getStatusCounts would send without its caps: the count caps' A/B (docs/benchmarks.md, Verdicts).
    {
      name: "reference: status counts, exact",
      run: async (db) =>
        rowsOf(await db.execute(sql`select status, count(*)::int as n from webhook_event group by status`)).length,
    },
    { name: "overview: getBacklog", run: async (db) => (await getBacklog(db, actor)).size },
    {
      name: "overview: getDeliverySeries (24 h, 10-min buckets)",
      run: async (db) => (await getDeliverySeries(db, actor, { hours: 24, bucketMinutes: 10 })).buckets.length,
    },
    { name: "overview: getFailingTypes", run: async (db) => (await getFailingTypes(db, actor)).length },
    // What getFailingTypes would send without its sample of the newest failures: the other half of that A/B.
    {
      name: "reference: failing types, exact",
      run: async (db) =>
        rowsOf(
          await db.execute(sql`
            select source, event_type, count(*) filter (where status = 'failed')::int as failed,
                   count(*) filter (where status = 'dead')::int as dead
            from webhook_event where status in ('failed', 'dead') group by 1, 2 order by count(*) desc limit 5`),
        ).length,
    },
    {
      name: "failures: listFailureGroups (dead)",
      run: async (db) => (await listFailureGroups(db, actor, { status: "dead" })).groups.length,
    },
    { name: "overview: listDeadEvents", run: async (db) => (await listDeadEvents(db, actor)).rows.length },
    {
      name: "overview: getRetentionPreview",
      run: async (db) => (await getRetentionPreview(db, actor, retention)).events,
    },
    { name: "overview: listOpenTies", run: async (db) => (await listOpenTies(db, actor)).length },
    {
      name: "customer: getSubjectView (customer id)",
      run: async (db) => (await getSubjectView(db, actor, { subject: p.customer }, noSources)).events.length,
    },
    {
      name: "customer: getSubjectView (email)",
      run: async (db) => (await getSubjectView(db, actor, { subject: p.email }, noSources)).events.length,
    },
    {
      name: "customer: buildDisputeBundle (customer id)",
      run: async (db) =>
        (await buildDisputeBundle(db, actor, { subject: p.customer }, { sourceOf: noSources, format: "json" })).events
          .length,
    },
    {
      name: "detail: getEventDetail (dead, 8 attempts)",
      run: async (db) => (await getEventDetail(db, actor, p.event, async () => undefined)).attempts.length,
    },
    {
      name: "entity: getEntityTimeline",
      run: async (db) => (await getEntityTimeline(db, actor, p.entity)).entries.length,
    },
    { name: "requeue: countRequeueable (no filter)", run: (db) => countRequeueable(db, actor, {}) },
    {
      name: "requeue: countRequeueable (stripe, 1 type)",
      run: (db) => countRequeueable(db, actor, { source: ["stripe"], type: ["invoice.payment_failed"] }),
    },
  ];
}

export const leaseCase: Case = {
  name: "worker: leaseDue batch of 100",
  mutates: true,
  run: async (db) => (await leaseDue(db, { workerId: "bench", leaseMs: 30_000, limit: 100 })).length,
};

class Rollback extends Error {}

/** Runs `fn` in a transaction that never commits. */
async function inRollback(db: Db, fn: (tx: Db) => Promise<number>): Promise<{ n: number; ms: number }> {
  let out = { n: 0, ms: 0 };
  await db
    .transaction(async (tx) => {
      const t0 = performance.now();
      const n = await fn(tx as unknown as Db);
      out = { n, ms: performance.now() - t0 };
      throw new Rollback();
    })
    .catch((err: unknown) => {
      if (!(err instanceof Rollback)) throw err;
    });
  return out;
}

async function once(db: Db, c: Case): Promise<{ n: number; ms: number }> {
  if (c.mutates) return inRollback(db, c.run);
  const t0 = performance.now();
  const n = await c.run(db);
  return { n, ms: performance.now() - t0 };
}

export interface Timing {
  rows: number;
  runs: number;
  p50: number;
  p95: number;
  max: number;
}

const pct = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? NaN;

/** 3 warm-ups, then `runs` timed calls; a case whose first call takes over 1 s gets 3 (the verdict is clear by then). */
export async function time(db: Db, c: Case, runs: number): Promise<Timing> {
  const first = await once(db, c);
  const slow = first.ms > 1000;
  let rows = first.n;
  for (let i = 0; i < (slow ? 0 : 2); i++) rows = (await once(db, c)).n;
  const ms: number[] = [];
  for (let i = 0; i < (slow ? Math.min(3, runs) : runs); i++) ms.push((await once(db, c)).ms);
  ms.sort((a, b) => a - b);
  return { rows, runs: ms.length, p50: pct(ms, 0.5), p95: pct(ms, 0.95), max: ms[ms.length - 1] ?? NaN };
}

/**
 * What the worker's settle pays for the search directory: recordSubjectTerms for a batch of `size` new events
 * (copies of recent settled ones under new event ids, so each brings one new term and finds the rest known),
 * timed alone inside a transaction that is rolled back.
 */
export async function termWrite(db: Db, runs: number, size = 100): Promise<Timing> {
  const ms: number[] = [];
  for (let run = 0; run < runs + 3; run++) {
    const tag = `-terms${run}`;
    // The callback returns the milliseconds of the term write alone (the copies' insert is not timed).
    const { n: took } = await inRollback(db, async (tx) => {
      const ids = rowsOf<{ id: string }>(
        await tx.execute(sql`
          select event_id as id from webhook_event where status = 'settled' and source = 'stripe'
          order by received_at desc offset ${run * size} limit ${size}`),
      ).map((r) => r.id);
      await seedEvents(
        tx,
        "source, event_id, event_type, payload, raw_body, headers, status, subject_ids",
        sql`
          select source, event_id || ${tag}, event_type, payload, raw_body, headers, 'processing',
                 array_replace(subject_ids, event_id, event_id || ${tag})
          from webhook_event where source = 'stripe' and event_id in ${ids}`,
      );
      const copies = rowsOf<{ source: string; eventId: string; payload: unknown; subjectIds: string[] }>(
        await tx.execute(sql`
          select source, event_id as "eventId", coalesce(payload, raw_body::jsonb) as payload, subject_ids as "subjectIds"
          from webhook_event where source = 'stripe' and event_id in ${ids.map((id) => id + tag)}`),
      );
      const t0 = performance.now();
      await recordSubjectTerms(tx, copies);
      return performance.now() - t0;
    });
    if (run >= 3) ms.push(took);
  }
  ms.sort((a, b) => a - b);
  return { rows: size, runs: ms.length, p50: pct(ms, 0.5), p95: pct(ms, 0.95), max: ms[ms.length - 1] ?? NaN };
}

/** Index names, short, and sequential scans of the big tables, as a plan's text shows them. */
function scans(plan: string, out: Set<string>) {
  for (const m of plan.matchAll(/(?:Index Scan|Index Only Scan)(?: Backward)? using (\S+)|Bitmap Index Scan on (\S+)/g))
    out.add((m[1] ?? m[2] ?? "").replace(/^webhook_event_/, "").replace(/^bench_/, "+"));
  for (const m of plan.matchAll(
    /Seq Scan on (webhook_event|webhook_delivery|webhook_attempt|entity_transition|subject_term)\b/g,
  ))
    out.add(`SEQ ${m[1]}`);
}

/** The indexes (and big-table seq scans) in the plans of every statement the case sent, plus the text plans. */
export async function explain(
  cap: { db: Db; sql: postgres.Sql; log: { q: string; params: unknown[] }[] },
  c: Case,
): Promise<{ uses: string; text: string }> {
  cap.log.length = 0;
  await inRollback(cap.db, c.run);
  const queries = cap.log.filter((l) => !/^(begin|rollback|commit|savepoint)/i.test(l.q.trim()));
  const uses = new Set<string>();
  const texts: string[] = [];
  for (const { q, params } of queries) {
    await cap.sql
      .begin(async (tx) => {
        const rows = await tx.unsafe(`explain (analyze, buffers) ${q}`, params as never[]);
        const plan = rows.map((r) => (r as Record<string, string>)["QUERY PLAN"]).join("\n");
        scans(plan, uses);
        const shown = JSON.stringify(params, (_k, v: unknown) => (typeof v === "bigint" ? String(v) : v));
        texts.push(`-- ${q.replace(/\s+/g, " ").slice(0, 400)}\n-- params: ${shown.slice(0, 300)}\n${plan}`);
        throw new Rollback();
      })
      .catch((err: unknown) => {
        if (!(err instanceof Rollback)) throw err;
      });
  }
  return { uses: [...uses].join(", "), text: `## ${c.name}\n${texts.join("\n")}\n` };
}

/** A drizzle db on its own connection that records every statement and its parameters. */
export function capturing(sql: postgres.Sql) {
  const log: { q: string; params: unknown[] }[] = [];
  const db = drizzle(sql, { schema, logger: { logQuery: (q, params) => log.push({ q, params }) } }) as unknown as Db;
  return { db, sql, log };
}
