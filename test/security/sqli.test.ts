import { sql } from "drizzle-orm";
import { beforeEach, describe, expect, it } from "vitest";
import { ZodError } from "zod";
import { rowsOf } from "@/db/client";
import { replayRun } from "@/db/schema/replay";
import { listAudit } from "@/lib/audit/log";
import { writeAudit } from "@/lib/audit/write";
import { ForbiddenError, type Actor } from "@/lib/roles";
import { describeError, ValidationError } from "@/lib/errors";
import { getEntityTimeline } from "@/lib/console/entity-timeline";
import { getEventDetail } from "@/lib/console/event-detail";
import { encodeCursor, listEvents, type ListEventsInput } from "@/lib/console/list-events";
import { countRequeueable, requeueMatching } from "@/lib/console/requeue-matching";
import { ConflictError, NotFoundError } from "@/lib/errors";
import { listReplayRuns, startReplayRun } from "@/lib/replay/runs";
import { githubIssuesOpened } from "@/test/fixtures/github";
import { stripeInvoicePaidEvent, stripeSubscriptionEvent } from "@/test/fixtures/stripe";
import { testSources } from "@/test/sources";
import { makeUser } from "../auth/helpers";
import { setupTestDb } from "../db";
import { claim } from "../worker/helpers";

/**
 * Every console query parameter, through the lib read behind it, with classic SQL injection payloads:
 * each must be data. No call may fail other than as the caller's mistake (a 4xx: validation, not
 * found), none may return rows the input does not match, none may take seconds (pg_sleep never
 * runs), and every table is still there with its rows afterwards.
 */
const { db } = setupTestDb();

const PAYLOADS = [
  "' or 1=1 --",
  "'; drop table webhook_event; --",
  '" or ""="',
  "1) or (1=1",
  "%' --",
  "\\'; select pg_sleep(5); --",
  "' union select source, event_id, event_type from webhook_event --",
  "'||(select pg_sleep(5))||'",
  "1; select pg_sleep(5)",
  "$1",
  "?",
  "/**/or/**/1=1",
  "\u2019 or \u20181\u2019=\u20181", // curly quotes
  "\u02bc or 1=1 --", // modifier letter apostrophe
  "\uff07 or \uff11=\uff11 --", // fullwidth quote and digits
  "$$; drop table audit_log; $$",
  "') or true; --",
  "%",
  "_",
] as const;
expect(PAYLOADS).toHaveLength(19);

/** One payload is also stored, literally, as an event's id, type, customer and entity id: searching for it finds exactly that event. */
const LITERAL = PAYLOADS[0];
const SEEDED = ["evt_plain", "evt_dead", "gh-1", LITERAL].sort();

const TABLES = [
  "webhook_event",
  "webhook_delivery",
  "webhook_attempt",
  "entity_version",
  "entity_transition",
  "subscription",
  "order",
  "customer_total",
  "replay_run",
  "audit_log",
  "auth_user",
  "auth_session",
  "auth_account",
  "auth_verification",
  "auth_rate_limit",
  "app_setting",
];

const testDirectory = testSources();
const TEST_SECRETS_BY_SOURCE = (slug: string) => testDirectory.find(slug);

const support: Actor = { id: "u-support", email: "support@example.com", role: "support" };
let ops: Actor;

beforeEach(async () => {
  await claim(
    db,
    "stripe",
    stripeSubscriptionEvent({ eventId: "evt_plain", subscriptionId: "sub_1Plain00001", customerId: "cus_Plain00001" }),
  );
  await claim(db, "stripe", stripeInvoicePaidEvent({ eventId: "evt_dead", customerId: "cus_Dead000001" }));
  await claim(db, "github", githubIssuesOpened(), { "x-github-delivery": "gh-1", "x-github-event": "issues" });
  const literal = stripeSubscriptionEvent({ eventId: LITERAL, subscriptionId: LITERAL, customerId: LITERAL });
  await claim(db, "stripe", { ...literal, type: LITERAL });
  await db.execute(
    sql`update webhook_event_state set status = 'dead', attempts = 3 where event_id in ('evt_dead', ${LITERAL})`,
  );
  await db.execute(sql`update webhook_event_state set status = 'failed', attempts = 1 where event_id = 'gh-1'`);
  await writeAudit(db, { id: null, email: "system" }, { action: "seed", target: "seed", result: "ok" });
  await db.insert(replayRun).values({
    actor: "seed@example.com",
    source: "stripe",
    since: new Date("2026-01-01T00:00:00Z"),
    until: new Date("2026-01-02T00:00:00Z"),
    status: "succeeded",
  });
  ops = await makeUser(db, "ops");
});

/** What the console turns into a 4xx: bad input (zod, ValidationError) or a key nothing has. */
const isClientError = (err: unknown) =>
  err instanceof ZodError ||
  err instanceof ValidationError ||
  err instanceof NotFoundError ||
  err instanceof ConflictError;

type Outcome<T> = { ok: true; value: T } | { ok: false; err: unknown };

/** Runs one call, recording into `failures` a server-side error or a call slow enough to have slept. */
async function probe<T>(failures: string[], label: string, call: () => Promise<T>): Promise<Outcome<T>> {
  const started = performance.now();
  let outcome: Outcome<T>;
  try {
    outcome = { ok: true, value: await call() };
  } catch (err) {
    outcome = { ok: false, err };
    if (!isClientError(err))
      failures.push(`${label}: threw ${(err as Error)?.name ?? typeof err}: ${describeError(err).slice(0, 160)}`);
  }
  const ms = performance.now() - started;
  if (ms >= 2000) failures.push(`${label}: took ${Math.round(ms)} ms (pg_sleep ran?)`);
  return outcome;
}

const q = async <T>(query: ReturnType<typeof sql>) => rowsOf<T>(await db.execute(query));

/** Every table still exists and the seeded rows are all still there, unchanged in number. */
async function expectIntact(events = SEEDED.length) {
  const missing = await q<{ t: string }>(
    sql`select t from unnest(${`{${TABLES.map((t) => `"${t}"`).join(",")}}`}::text[]) as t where to_regclass(quote_ident(t)) is null`,
  );
  expect(missing).toEqual([]);
  expect(await q(sql`select count(*)::int as n from webhook_event`)).toEqual([{ n: events }]);
  expect((await q<{ n: number }>(sql`select count(*)::int as n from audit_log`))[0]!.n).toBeGreaterThanOrEqual(1);
  expect((await q<{ n: number }>(sql`select count(*)::int as n from replay_run`))[0]!.n).toBeGreaterThanOrEqual(1);
  expect(await q(sql`select count(*)::int as n from auth_user`)).toEqual([{ n: 1 }]);
}

const idsOf = (o: Outcome<{ rows: { eventId: string }[] }>) =>
  o.ok ? o.value.rows.map((r) => r.eventId).sort() : undefined;
const expected = (p: string) => (p === LITERAL ? [LITERAL] : []);

describe("SQL injection through the console's query parameters", () => {
  it("[sqli] the seeded ledger is what the probes below expect", async () => {
    expect((await listEvents(db, support, {})).rows.map((r) => r.eventId).sort()).toEqual(SEEDED);
    expect((await listEvents(db, support, { filter: { q: LITERAL } })).rows.map((r) => r.eventId)).toEqual([LITERAL]);
  });

  it("[sqli] the probe itself: a call that sleeps is reported, and so is a database error", async () => {
    const failures: string[] = [];
    await probe(failures, "sleep", () => db.execute(sql`select pg_sleep(2.05)`));
    await probe(failures, "error", () => db.execute(sql`select 'x'::timestamptz`));
    expect(failures).toEqual([
      expect.stringMatching(/^sleep: took \d+ ms/),
      expect.stringMatching(/^error: threw .*22007/),
    ]);
  });

  it("[sqli] /events: search and type match a payload only as literal text; source, status and sort refuse it", async () => {
    const failures: string[] = [];
    const list = (label: string, input: ListEventsInput) =>
      probe(failures, label, () => listEvents(db, support, input));
    for (const p of PAYLOADS) {
      const search = await list(`q=${p}`, { filter: { q: p } });
      expect.soft(idsOf(search), `q=${p}`).toEqual(expected(p));
      const type = await list(`type=${p}`, { filter: { type: p } });
      expect.soft(idsOf(type), `type=${p}`).toEqual(expected(p));
      // The same, combined with the other keys, and as a repeated URL key (?type=a&type=b).
      const combined = await list(`q+type+source=${p}`, {
        filter: { q: p, type: [p, "invoice.paid"], source: ["stripe"], status: ["dead"] },
      });
      expect.soft(idsOf(combined), `combined ${p}`).toEqual(expected(p));
      for (const key of ["source", "status"] as const) {
        const o = await list(`${key}=${p}`, { filter: { [key]: p } });
        expect.soft(o.ok === false && o.err instanceof ZodError, `${key}=${p} is refused as input`).toBe(true);
      }
      const sorted = await list(`sort=${p}`, { sort: p as ListEventsInput["sort"] });
      expect.soft(sorted.ok === false && sorted.err instanceof ZodError, `sort=${p}`).toBe(true);
      const back = await list(`back with q=${p}`, { filter: { q: p }, back: true });
      expect.soft(idsOf(back), `back ${p}`).toEqual(expected(p));
    }
    expect(failures).toEqual([]);
    await expectIntact();
  });

  it("[sqli] /events: from and to either refuse a payload or read it as a date; never more rows than exist", async () => {
    const failures: string[] = [];
    for (const p of PAYLOADS)
      for (const key of ["from", "to"] as const) {
        const o = await probe(failures, `${key}=${p}`, () => listEvents(db, support, { filter: { [key]: p } }));
        if (o.ok) expect.soft(SEEDED, `${key}=${p}`).toEqual(expect.arrayContaining(idsOf(o)!));
        else expect.soft(o.err instanceof ZodError, `${key}=${p}`).toBe(true);
      }
    expect(failures).toEqual([]);
    await expectIntact();
  });

  it("[sqli] /events: a cursor that is a payload is a damaged page link", async () => {
    const failures: string[] = [];
    for (const p of PAYLOADS) {
      const o = await probe(failures, `cursor=${p}`, () => listEvents(db, support, { cursor: p }));
      expect.soft(o.ok === false && o.err instanceof ZodError, `cursor=${p}`).toBe(true);
      const b64 = await probe(failures, `cursor=base64(${p})`, () =>
        listEvents(db, support, { cursor: Buffer.from(p).toString("base64url") }),
      );
      expect.soft(b64.ok === false && b64.err instanceof ZodError, `cursor=base64(${p})`).toBe(true);
    }
    expect(failures).toEqual([]);
    await expectIntact();
  });

  it("[sqli] /events: a well-formed cursor carrying a payload as its source or event id compares as text", async () => {
    const failures: string[] = [];
    const [newest] = (await listEvents(db, support, { limit: 1 })).rows;
    const ts = rowsOf<{ ts: string }>(await db.execute(sql`select max(received_at)::text as ts from webhook_event`))[0]!
      .ts;
    for (const p of PAYLOADS)
      for (const cursor of [encodeCursor([ts, p, "evt_x"]), encodeCursor([ts, "stripe", p]), encodeCursor([ts, p, p])])
        for (const back of [false, true]) {
          const o = await probe(failures, `cursor(${p}, back=${back})`, () =>
            listEvents(db, support, { cursor, back }),
          );
          if (o.ok) expect.soft(SEEDED, `cursor ${p}`).toEqual(expect.arrayContaining(idsOf(o)!));
        }
    expect(newest).toBeDefined();
    expect(failures).toEqual([]);
    await expectIntact();
  });

  // A crafted page link whose timestamp is not a timestamp: the value is bound as a parameter (no
  // injection), but PostgreSQL's cast error escapes listEvents as a driver error, which the events
  // page does not catch (it catches ZodError only): a 500 for what is the caller's bad input.
  it("[sqli] /events: a cursor whose timestamp is a payload is refused as a damaged link, not a database error", async () => {
    const failures: string[] = [];
    for (const p of PAYLOADS) {
      const o = await probe(failures, `cursor timestamp=${p}`, () =>
        listEvents(db, support, { cursor: encodeCursor([p, "stripe", "evt_x"]) }),
      );
      if (o.ok) expect.soft(SEEDED, `cursor timestamp=${p}`).toEqual(expect.arrayContaining(idsOf(o)!));
    }
    expect(failures).toEqual([]);
    await expectIntact();
  });

  it("[sqli] /events/{source}/{eventId}: a payload event id is looked up as text; a payload source is refused", async () => {
    const failures: string[] = [];
    for (const p of PAYLOADS) {
      const o = await probe(failures, `event ${p}`, () =>
        getEventDetail(db, support, { source: "stripe", eventId: p }, TEST_SECRETS_BY_SOURCE),
      );
      if (p === LITERAL) expect.soft(o.ok && o.value.event.eventId, `event ${p}`).toBe(LITERAL);
      else expect.soft(o.ok === false && o.err instanceof NotFoundError, `event ${p} is not found`).toBe(true);
      const s = await probe(failures, `source ${p}`, () =>
        getEventDetail(db, support, { source: p as "stripe", eventId: "evt_plain" }, TEST_SECRETS_BY_SOURCE),
      );
      expect.soft(s.ok === false && s.err instanceof ZodError, `source ${p}`).toBe(true);
    }
    expect(failures).toEqual([]);
    await expectIntact();
  });

  it("[sqli] /entities/{source}/{type}/{id}: payload types and ids find nothing but their literal match", async () => {
    const failures: string[] = [];
    for (const p of PAYLOADS) {
      const byId = await probe(failures, `entity id ${p}`, () =>
        getEntityTimeline(db, support, { source: "stripe", entityType: "subscription", entityId: p }),
      );
      expect.soft(byId.ok && byId.value.entries.map((e) => e.eventId), `entity id ${p}`).toEqual(expected(p));
      const byType = await probe(failures, `entity type ${p}`, () =>
        getEntityTimeline(db, support, { source: "stripe", entityType: p, entityId: LITERAL }),
      );
      expect.soft(byType.ok && byType.value.entries.length, `entity type ${p}`).toBe(0);
      expect.soft(byType.ok && byType.value.state, `entity type ${p}: no state table`).toBeUndefined();
      const bySource = await probe(failures, `entity source ${p}`, () =>
        getEntityTimeline(db, support, { source: p as "stripe", entityType: "subscription", entityId: "x" }),
      );
      expect.soft(bySource.ok === false && bySource.err instanceof ZodError, `entity source ${p}`).toBe(true);
    }
    expect(failures).toEqual([]);
    await expectIntact();
  });

  // The state table is looked up by the URL's entity type in a plain object: inherited keys
  // (constructor, toString, __proto__) resolve to Object.prototype members, not to undefined.
  it("[sqli] /entities: an entity type named like an Object.prototype member is just an unknown type", async () => {
    const failures: string[] = [];
    for (const type of ["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf"]) {
      const o = await probe(failures, `entity type ${type}`, () =>
        getEntityTimeline(db, support, { source: "stripe", entityType: type, entityId: "sub_1Plain00001" }),
      );
      if (o.ok) expect.soft(o.value.state, `entity type ${type}`).toBeUndefined();
    }
    expect(failures).toEqual([]);
    await expectIntact();
  });

  it("[sqli] /audit: a payload as a filter or a cursor is a ValidationError or no match, and the list is unchanged", async () => {
    const failures: string[] = [];
    const all = (await listAudit(db, support)).rows.map((r) => r.id);
    for (const p of PAYLOADS) {
      for (const key of ["before", "after"] as const) {
        const o = await probe(failures, `${key}=${p}`, () => listAudit(db, support, { [key]: p }));
        expect.soft(!o.ok && o.err instanceof ValidationError, `${key}=${p}`).toBe(true);
      }
      for (const key of ["actor", "action", "result", "from", "to"] as const)
        await probe(failures, `${key}=${p}`, () => listAudit(db, support, { [key]: p }));
    }
    expect((await listAudit(db, support)).rows.map((r) => r.id)).toEqual(all);
    expect(failures).toEqual([]);
    await expectIntact();
  });

  // A cursor is base64url JSON [at, id]: a well-formed one holding a fraction, a huge number or a bad
  // timestamp must be refused as a damaged link before it reaches the bigint or timestamptz comparison.
  it("[sqli] /audit: a forged cursor holding a non-bigint id or a bad timestamp is a ValidationError", async () => {
    const failures: string[] = [];
    const forge = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");
    for (const raw of [
      ["2026-01-01 00:00:00+00", 1.5],
      ["2026-01-01 00:00:00+00", 1e308],
      ["2026-01-01 00:00:00+00", -1],
      ["2026-01-01 00:00:00+00", "9223372036854775808"],
      ["now()", 1],
      ["2026-01-01 00:00:00+00'; drop table audit_log; --", 1],
    ]) {
      const o = await probe(failures, `before=${JSON.stringify(raw)}`, () =>
        listAudit(db, support, { before: forge(raw) }),
      );
      expect.soft(!o.ok && o.err instanceof ValidationError, JSON.stringify(raw)).toBe(true);
    }
    expect(failures).toEqual([]);
    await expectIntact();
  });

  it("[sqli] /replays: a payload in the types is stored and listed as text; a payload window is refused", async () => {
    const failures: string[] = [];
    const lease = { owner: "test", leaseMs: 60_000 };
    for (const p of PAYLOADS) {
      const o = await probe(failures, `types=${p}`, () =>
        startReplayRun({
          db,
          actor: ops,
          input: {
            source: "stripe",
            since: "2026-01-01T00:00:00Z",
            until: "2026-01-02T00:00:00Z",
            types: [p],
            dryRun: true,
          },
          lease,
        }),
      );
      expect.soft(o.ok && o.value.types, `types=${p}`).toEqual([p.trim()]);
      const since = await probe(failures, `since=${p}`, () =>
        startReplayRun({ db, actor: ops, input: { source: "stripe", since: p }, lease }),
      );
      if (since.ok) expect.soft(Number.isNaN(since.value.since.getTime()), `since=${p}`).toBe(false);
      else expect.soft(since.err instanceof ZodError, `since=${p}`).toBe(true);
      const source = await probe(failures, `source=${p}`, () =>
        startReplayRun({ db, actor: ops, input: { source: p as "stripe", since: "2026-01-01T00:00:00Z" }, lease }),
      );
      expect.soft(source.ok === false && source.err instanceof ZodError, `source=${p}`).toBe(true);
    }
    const runs = await listReplayRuns({ db, actor: support, limit: 200 });
    const previews = runs
      .filter((r) => r.dryRun && r.until.toISOString() === "2026-01-02T00:00:00.000Z")
      .map((r) => r.types[0]);
    expect(previews.sort()).toEqual(PAYLOADS.map((p) => p.trim()).sort());
    expect(failures).toEqual([]);
    await expectIntact();
  });

  it("[sqli] bulk requeue: the count and the requeue match a payload only as literal text", async () => {
    const failures: string[] = [];
    for (const p of PAYLOADS)
      for (const filter of [{ q: p }, { type: p }, { q: p, type: [p], source: ["stripe"] }]) {
        const o = await probe(failures, `count ${JSON.stringify(filter)}`, () => countRequeueable(db, ops, filter));
        expect.soft(o.ok && o.value, `count ${JSON.stringify(filter)}`).toBe(p === LITERAL ? 1 : 0);
      }
    for (const p of PAYLOADS) {
      const bad = await probe(failures, `count source=${p}`, () => countRequeueable(db, ops, { source: p }));
      expect.soft(bad.ok === false && bad.err instanceof ZodError, `count source=${p}`).toBe(true);
    }
    // The requeue itself, last (it moves the literal event): only the literal match moves.
    for (const p of [...PAYLOADS.slice(1), LITERAL]) {
      const o = await probe(failures, `requeue q=${p}`, () =>
        requeueMatching({ db, actor: ops, input: { filter: { q: p }, confirmed: 1 } }),
      );
      expect.soft(o.ok && o.value.requeued, `requeue q=${p}`).toBe(p === LITERAL ? 1 : 0);
    }
    expect(await q(sql`select event_id, status from webhook_event order by event_id`)).toEqual(
      [
        { event_id: LITERAL, status: "claimed" },
        { event_id: "evt_dead", status: "dead" },
        { event_id: "evt_plain", status: "claimed" },
        { event_id: "gh-1", status: "failed" },
      ].sort((a, b) => (a.event_id < b.event_id ? -1 : 1)),
    );
    expect(failures).toEqual([]);
    await expectIntact();
  });

  it("[sqli] the read verbs still refuse an anonymous caller whatever the input", async () => {
    await expect(listEvents(db, undefined, { filter: { q: LITERAL } })).rejects.toThrow(ForbiddenError);
    await expect(countRequeueable(db, support, { q: LITERAL })).rejects.toThrow(ForbiddenError);
  });
});
