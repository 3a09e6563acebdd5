import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { sql as dsql } from "drizzle-orm";
import { readMigrationFiles } from "drizzle-orm/migrator";
import { drizzle } from "drizzle-orm/postgres-js";
import { migrate as drizzleMigrate } from "drizzle-orm/postgres-js/migrator";
import postgres, { type Sql } from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectPglite, rowsOf } from "@/db/client";
import { migratePglite, migratePostgresFolder, MIGRATIONS_FOLDER } from "@/db/migrate";
import { NO_TRANSACTION_MARKER, readMigrationSteps } from "@/db/migrate-steps";
import { sqlState } from "@/lib/errors";
import { seedEventsAt } from "@/test/seed-events";
import { scratchDatabase } from "../db";

const tempDirs: string[] = [];

afterAll(() => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

const freshDatabase = scratchDatabase;

function connect(url: string): Sql {
  return postgres(url, { max: 1, onnotice: () => {} });
}

interface JournalEntry {
  idx: number;
  version: string;
  when: number;
  tag: string;
  breakpoints: boolean;
}
const journal = JSON.parse(readFileSync(path.join(MIGRATIONS_FOLDER, "meta", "_journal.json"), "utf8")) as {
  version: string;
  dialect: string;
  entries: JournalEntry[];
};
const tags = journal.entries.map((e) => e.tag);
const tagsAfter = (tag: string) => tags.slice(tags.indexOf(tag) + 1);

/** A migrations folder holding the real migrations up to `lastTag`, optionally with some files' text replaced. */
function migrationsUpTo(lastTag: string, replace: Record<string, string> = {}): string {
  const dir = mkdtempSync(path.join(tmpdir(), "ledger-migrations-"));
  tempDirs.push(dir);
  mkdirSync(path.join(dir, "meta"));
  const entries = journal.entries.slice(0, tags.indexOf(lastTag) + 1);
  writeFileSync(path.join(dir, "meta", "_journal.json"), JSON.stringify({ ...journal, entries }));
  for (const { tag } of entries) {
    const file = `${tag}.sql`;
    if (replace[tag] !== undefined) writeFileSync(path.join(dir, file), replace[tag]);
    else copyFileSync(path.join(MIGRATIONS_FOLDER, file), path.join(dir, file));
  }
  return dir;
}

/** A table's indexes, name → definition from USING on. */
async function indexesOf(db: Sql, table: string): Promise<Record<string, string>> {
  const rows = await db<{ indexname: string; indexdef: string }[]>`
    select indexname, indexdef from pg_indexes where tablename = ${table} order by indexname`;
  return Object.fromEntries(rows.map((r) => [r.indexname, r.indexdef.replace(/^.* USING /, "")]));
}

/** A migrations folder of made-up migrations. */
function fixtureMigrations(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(tmpdir(), "ledger-migrations-"));
  tempDirs.push(dir);
  mkdirSync(path.join(dir, "meta"));
  const entries = Object.keys(files).map((tag, idx) => ({
    idx,
    version: "7",
    when: 1_000 + idx,
    tag,
    breakpoints: true,
  }));
  writeFileSync(
    path.join(dir, "meta", "_journal.json"),
    JSON.stringify({ version: "7", dialect: "postgresql", entries }),
  );
  for (const [tag, text] of Object.entries(files)) writeFileSync(path.join(dir, `${tag}.sql`), text);
  return dir;
}

// 0004 as drizzle-kit generated it, and as databases migrated before this change applied it.
const PLAIN_0004 =
  'CREATE INDEX "webhook_event_type_idx" ON "webhook_event" USING btree ("event_type","received_at","event_id","source");--> statement-breakpoint\n' +
  'CREATE INDEX "webhook_event_status_idx" ON "webhook_event" USING btree ("status","received_at","event_id","source","event_type");';

// After every migration: 0022 moved them, with the lifecycle columns, to webhook_event_state.
const TYPE_IDX_DEF =
  "CREATE INDEX webhook_event_type_idx ON public.webhook_event_state USING btree (event_type, received_at, event_id, source)";
const STATUS_IDX_DEF =
  "CREATE INDEX webhook_event_status_idx ON public.webhook_event_state USING btree (status, received_at, event_id, source, event_type)";

interface IndexRow {
  name: string;
  oid: number;
  valid: boolean;
  ready: boolean;
  unique: boolean;
  def: string;
}

async function consoleIndexes(db: Sql): Promise<Record<string, IndexRow>> {
  const rows = await db<IndexRow[]>`
    select c.relname as name, c.oid::int as oid, i.indisvalid as valid, i.indisready as ready, i.indisunique as unique,
           pg_get_indexdef(c.oid) as def
    from pg_index i
    join pg_class c on c.oid = i.indexrelid
    where i.indrelid = coalesce(to_regclass('webhook_event_state'), to_regclass('webhook_event'))
      and c.relname in ('webhook_event_type_idx', 'webhook_event_status_idx')
  `;
  return Object.fromEntries(rows.map((r) => [r.name, { ...r }]));
}

async function recorded(db: Sql): Promise<{ id: number; hash: string; created_at: string }[]> {
  return [
    ...(await db<{ id: number; hash: string; created_at: string }[]>`
    select id, hash, created_at
    from drizzle.__drizzle_migrations
    order by id
  `),
  ];
}

describe("migration steps", () => {
  it("[migrate] the migrations that build indexes on the ledger's big tables after 0003 build them concurrently", () => {
    const bigTables = new Set([
      "webhook_event",
      "webhook_event_body",
      "webhook_event_state",
      "webhook_delivery",
      "webhook_attempt",
      "entity_transition",
    ]);
    const steps = readMigrationSteps(MIGRATIONS_FOLDER);
    expect(steps.map((s) => s.tag)).toEqual(tags);
    const builds = steps.slice(tags.indexOf("0003_replay") + 1).flatMap((step) => {
      // A table the migration itself creates is empty and invisible until it commits: nothing waits on its build.
      const created = new Set(
        step.statements.flatMap((s) =>
          [...s.matchAll(/\bCREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?"?(\w+)"?/gi)].map((m) => m[1]!),
        ),
      );
      return step.statements.flatMap((statement) => {
        const code = statement.replace(/--[^\n]*/g, " ");
        const create = [
          ...code.matchAll(/\bCREATE\s+(?:UNIQUE\s+)?INDEX\b[\s\S]*?\bON\s+(?:ONLY\s+)?(?:"?\w+"?\.)?"?(\w+)"?/gi),
        ];
        const reindex = [...code.matchAll(/\bREINDEX\b[^;]*?"?(\w+)"?\s*(?:;|$)/gi)];
        return [...create, ...reindex].map((m) => ({
          tag: step.tag,
          table: m[1]!,
          reindex: /^REINDEX/i.test(m[0]),
          concurrent: /\bCONCURRENTLY\b/i.test(m[0]),
          transactional: step.transactional,
          newTable: created.has(m[1]!),
        }));
      });
    });
    expect(builds.length).toBeGreaterThanOrEqual(2);
    // A REINDEX names an index or a table: every one is held to the rule.
    expect(builds.filter((b) => b.newTable).map((b) => b.table)).toContain("webhook_event_state");
    for (const build of builds.filter((b) => b.reindex || (bigTables.has(b.table) && !b.newTable)))
      expect(build, `${build.tag} builds an index on ${build.table}`).toMatchObject({
        concurrent: true,
        transactional: false,
      });
  });

  it("[migrate] refuses CONCURRENTLY without the marker, and a concurrent build that a re-run could not heal", () => {
    const unmarked = fixtureMigrations({ "0000_x": 'CREATE INDEX CONCURRENTLY IF NOT EXISTS "x_idx" ON "t" ("a");' });
    expect(() => readMigrationSteps(unmarked)).toThrow(/0000_x uses CONCURRENTLY/);
    const noIfNotExists = fixtureMigrations({
      "0000_x": `${NO_TRANSACTION_MARKER}\nCREATE INDEX CONCURRENTLY "x_idx" ON "t" ("a");`,
    });
    expect(() => readMigrationSteps(noIfNotExists)).toThrow(/"x_idx" concurrently without naming it and IF NOT EXISTS/);
    const unnamed = fixtureMigrations({
      "0000_x": `${NO_TRANSACTION_MARKER}\nCREATE INDEX CONCURRENTLY ON "t" ("a");`,
    });
    expect(() => readMigrationSteps(unnamed)).toThrow(/builds an index concurrently without naming it/);
    const commentOnly = fixtureMigrations({
      "0000_x": '-- not CONCURRENTLY: small table\nCREATE INDEX "x_idx" ON "t" ("a");',
    });
    expect(readMigrationSteps(commentOnly)[0]?.transactional).toBe(true);
  });
});

describe("migrator on PostgreSQL", () => {
  it("[migrate] a fresh database gets every migration, recorded as drizzle records it, with valid indexes; a second run is a no-op", async () => {
    const url = await freshDatabase("cc_fresh");
    expect(await migratePostgresFolder(url, MIGRATIONS_FOLDER)).toEqual(tags);
    const db = connect(url);
    try {
      const expected = readMigrationFiles({ migrationsFolder: MIGRATIONS_FOLDER }).map((m, n) => ({
        id: n + 1,
        hash: m.hash,
        created_at: String(m.folderMillis),
      }));
      expect(await recorded(db)).toEqual(expected);
      const indexes = await consoleIndexes(db);
      expect(indexes.webhook_event_type_idx).toMatchObject({
        valid: true,
        ready: true,
        unique: false,
        def: TYPE_IDX_DEF,
      });
      expect(indexes.webhook_event_status_idx).toMatchObject({
        valid: true,
        ready: true,
        unique: false,
        def: STATUS_IDX_DEF,
      });
      const [invalid] = await db<{ n: number }[]>`select count(*)::int as n from pg_index where not indisvalid`;
      expect(invalid?.n).toBe(0);
      const [gin] = await db<
        { options: string[] }[]
      >`select reloptions as options from pg_class where relname = 'webhook_event_subject_ids_idx'`;
      expect(gin?.options).toEqual(["fastupdate=on", "gin_pending_list_limit=256"]);

      expect(await migratePostgresFolder(url, MIGRATIONS_FOLDER)).toEqual([]);
      expect(await recorded(db)).toEqual(expected);
      expect(await consoleIndexes(db)).toEqual(indexes);
    } finally {
      await db.end();
    }
  });

  it("[migrate] takes over from drizzle's migrator, and leaves a database that applied the plain 0004 as it is", async () => {
    const fromDrizzle = await freshDatabase("cc_drizzle");
    const plain = await freshDatabase("cc_plain");
    for (const [url, folder] of [
      [fromDrizzle, migrationsUpTo("0003_replay")],
      // Up to the last migration drizzle's one-transaction migrator can run (later ones build concurrently).
      [plain, migrationsUpTo("0006_intake_note", { "0004_console_indexes": PLAIN_0004 })],
    ] as const) {
      const client = connect(url);
      try {
        await drizzleMigrate(drizzle(client), { migrationsFolder: folder });
      } finally {
        await client.end();
      }
    }

    expect(await migratePostgresFolder(fromDrizzle, MIGRATIONS_FOLDER)).toEqual(tagsAfter("0003_replay"));
    // drizzle compares only created_at with the last one recorded, never a hash: the edited 0004 is not re-run.
    expect(await migratePostgresFolder(plain, MIGRATIONS_FOLDER)).toEqual(tagsAfter("0006_intake_note"));
    for (const url of [fromDrizzle, plain]) {
      const db = connect(url);
      try {
        const rows = await recorded(db);
        expect(rows.map((r) => [r.id, r.created_at])).toEqual(journal.entries.map((e, n) => [n + 1, String(e.when)]));
        expect(Object.values(await consoleIndexes(db)).map((i) => [i.def, i.valid])).toEqual(
          expect.arrayContaining([
            [TYPE_IDX_DEF, true],
            [STATUS_IDX_DEF, true],
          ]),
        );
      } finally {
        await db.end();
      }
    }
  });

  it("[migrate] 0022 splits every event into body and state: the webhook_event view reads each row as it was", async () => {
    const url = await freshDatabase("cc_split");
    await migratePostgresFolder(url, migrationsUpTo("0021_gin_pending_list"));
    const db = connect(url);
    try {
      await db`
        insert into webhook_event (source, event_id, event_type, raw_body, headers, status, attempts, attempts_base,
          last_error, settled_at, subject_ids, entity_type, entity_id, entity_version, lease_token, leased_at, leased_by,
          lease_expires_at, next_trigger, next_actor, outcome, resolution, resolution_note, resolved_by, resolved_at,
          body_sha256, body_is_key, verified_with, intake_note, via, received_at, next_attempt_at)
        values
          ('stripe', 'evt_settled', 'invoice.paid', '{"id":"evt_settled"}', '{"x":"1"}', 'settled', 1, 0, null,
           '2026-01-01T00:00:01Z', '{cus_A}', 'invoice', 'in_1', 5, null, '2026-01-01T00:00:00Z', 'w1', null, 'auto', null,
           'stale', null, null, null, null, 'ab', true, 'fp1', null, 'provider', '2026-01-01T00:00:00Z',
           '2026-01-01T00:00:00Z'),
          ('stripe', 'evt_dead', 'invoice.paid', '{"id":"evt_dead"}', '{}', 'dead', 3, 1, 'boom', '2026-01-02T00:00:00Z',
           '{}', null, null, null, null, null, null, null, 'requeue', 'ops@example.com', 'failed', 'ignored', 'n/a',
           'ops@example.com', '2026-01-02T00:00:00Z', null, null, null, 'version out of range', 'replay',
           '2026-01-01T12:00:00Z', '2026-01-01T12:00:00Z'),
          ('github', 'gh_1', 'push', '{"ref":"x"}', '{}', 'processing', 1, 0, null, null, '{}', null, null, null,
           'c0ffee00-0000-4000-8000-000000000000', now(), 'w2', now() + interval '30 s', 'auto', null, null, null, null,
           null, null, 'cd', null, null, null, 'provider', now(), now())`;
      const before = await db`select * from webhook_event order by source, event_id`;
      expect(await migratePostgresFolder(url, migrationsUpTo("0022_event_state"))).toEqual(["0022_event_state"]);
      const after = await db`select * from webhook_event order by source, event_id`;
      expect(after).toEqual(before);
      const [kinds] = await db<{ body: string; state: string; view: string }[]>`
        select (select relkind::text from pg_class where relname = 'webhook_event_body') as body,
               (select relkind::text from pg_class where relname = 'webhook_event_state') as state,
               (select relkind::text from pg_class where relname = 'webhook_event') as view`;
      expect(kinds).toEqual({ body: "r", state: "r", view: "v" });
    } finally {
      await db.end();
    }
  });

  it("[migrate] 0024 keys attempts by event and timeline rows by entity: one b-tree each, rows kept, re-runnable", async () => {
    const url = await freshDatabase("cc_keys");
    await migratePostgresFolder(url, migrationsUpTo("0023_subject_term_epoch"));
    const db = connect(url);
    try {
      // A requeue's attempt can share its number with the one before it: the id keeps the key unique.
      await db`
          insert into webhook_attempt (source, event_id, number, trigger, actor, started_at, finished_at, outcome)
          values ('stripe', 'evt_a', 1, 'auto', 'w1', now(), now(), 'failed'),
                 ('stripe', 'evt_a', 1, 'requeue', 'ops@example.com', now(), now(), 'settled'),
                 ('stripe', 'evt_b', 1, 'auto', 'w1', now(), now(), 'settled')`;
      await db`
          insert into entity_transition (source, entity_type, entity_id, event_id, version, outcome, changes)
          values ('stripe', 'subscription', 'sub_1', 'evt_a', 1, 'applied', '{}'),
                 ('stripe', 'subscription', 'sub_1', 'evt_b', 1, 'tie', '{}')`;
      const attemptsBefore = await db`select * from webhook_attempt order by id`;
      const timelineBefore = await db`select * from entity_transition order by id`;

      expect(await migratePostgresFolder(url, migrationsUpTo("0024_narrow_keys"))).toEqual(["0024_narrow_keys"]);
      const expected = {
        attempts: { webhook_attempt_pkey: "btree (source, event_id, number, id)" },
        timeline: {
          entity_transition_event_idx: "btree (source, event_id)",
          entity_transition_pkey: "btree (source, entity_type, entity_id, id)",
          entity_transition_tie_idx: "btree (recorded_at) WHERE (outcome = 'tie'::text)",
        },
      };
      expect(await indexesOf(db, "webhook_attempt")).toEqual(expected.attempts);
      expect(await indexesOf(db, "entity_transition")).toEqual(expected.timeline);
      expect(await db`select * from webhook_attempt order by id`).toEqual(attemptsBefore);
      expect(await db`select * from entity_transition order by id`).toEqual(timelineBefore);

      // Interrupted anywhere, the next start runs every statement again: each is a no-op once applied.
      const [step] = readMigrationSteps(MIGRATIONS_FOLDER).filter((m) => m.tag === "0024_narrow_keys");
      for (const statement of step!.statements) await db.unsafe(statement);
      expect(await indexesOf(db, "webhook_attempt")).toEqual(expected.attempts);
      expect(await indexesOf(db, "entity_transition")).toEqual(expected.timeline);
      // The ids go on from where they were.
      const [next] = await db<{ id: string }[]>`
          insert into webhook_attempt (source, event_id, number, trigger, actor, started_at, finished_at, outcome)
          values ('stripe', 'evt_b', 2, 'auto', 'w1', now(), now(), 'settled') returning id::text`;
      expect(Number(next!.id)).toBeGreaterThan(Math.max(...attemptsBefore.map((a) => Number(a.id))));
    } finally {
      await db.end();
    }
  });

  it("[migrate] 0025 keys deliveries by event: one b-tree fewer per claim, rows kept, a held claim waited out, re-runnable", async () => {
    const url = await freshDatabase("cc_delivery_key");
    await migratePostgresFolder(url, migrationsUpTo("0024_narrow_keys"));
    const db = connect(url);
    const holder = connect(url);
    const migrator = connect(url);
    let release: () => void = () => {};
    const expected = {
      webhook_delivery_pkey: "btree (source, event_id, id)",
      webhook_delivery_received_idx: "btree (received_at)",
    };
    try {
      // A duplicate's delivery shares its event with the first: the id keeps the key unique.
      await db`
          insert into webhook_delivery (source, event_id, via, claimed)
          values ('stripe', 'evt_a', 'provider', true), ('stripe', 'evt_a', 'provider', false),
                 ('github', 'evt_a', 'provider', true)`;
      const before = await db`select * from webhook_delivery order by id`;
      const [build, swap, dropOld] = readMigrationSteps(MIGRATIONS_FOLDER).find(
        (m) => m.tag === "0025_delivery_key",
      )!.statements;
      await migrator.unsafe(build!);

      // A claim's transaction is open when the swap comes: the swap gives way (200 ms lock_timeout) and tries
      // again, so the claims after it wait that long at most instead of queueing behind it until the first ends.
      let inserted: () => void = () => {};
      const holding = new Promise<void>((resolve) => (inserted = resolve));
      const held = holder.begin(async (tx) => {
        await tx`insert into webhook_delivery (source, event_id, via, claimed) values ('stripe', 'evt_b', 'provider', true)`;
        inserted();
        await new Promise<void>((resolve) => (release = resolve));
      });
      await holding;
      // postgres.js sends a query when it is awaited: execute() sends it now.
      const swapped = migrator.unsafe(swap!).execute();
      await sleep(300);
      const claim = db`insert into webhook_delivery (source, event_id, via, claimed)
                       values ('stripe', 'evt_c', 'provider', true)`.execute();
      const answered = await Promise.race([claim.then(() => true), sleep(1000).then(() => false)]);
      expect(answered, "a claim still waits behind the swap after 1 s").toBe(true);
      expect((await indexesOf(db, "webhook_delivery")).webhook_delivery_pkey).toBe("btree (id)");
      release();
      await held;
      await swapped;
      await migrator.unsafe(dropOld!);
      expect(await indexesOf(db, "webhook_delivery")).toEqual(expected);
      expect(await db`select * from webhook_delivery where event_id = 'evt_a' order by id`).toEqual(before);

      // Interrupted anywhere, the next start runs every statement again (each a no-op now) and records it.
      expect(await migratePostgresFolder(url, migrationsUpTo("0025_delivery_key"))).toEqual(["0025_delivery_key"]);
      expect(await indexesOf(db, "webhook_delivery")).toEqual(expected);
      const [next] = await db<{ id: string }[]>`
          insert into webhook_delivery (source, event_id, via, claimed) values ('stripe', 'evt_a', 'replay', false)
          returning id::text`;
      expect(Number(next!.id)).toBeGreaterThan(Math.max(...before.map((d) => Number(d.id))));
    } finally {
      release();
      await Promise.all([holder, migrator, db].map((c) => c.end({ timeout: 1 })));
    }
  });

  it("[migrate] 0026 scopes body keys as ids are: Shopify's rows by their topic, GitHub's and slug-keyed rows by source; re-runnable", async () => {
    const url = await freshDatabase("cc_body_scope");
    await migratePostgresFolder(url, migrationsUpTo("0025_delivery_key"));
    const db = connect(url);
    try {
      await seedEventsAt(
        url,
        "source, event_id, event_type, raw_body, headers, body_sha256, body_is_key",
        dsql`values ('shop-eu', 'e-1:orders/create', 'orders/create', '{}', '{"x-shopify-topic":"orders/create"}', 'aa', true),
                    ('shop-eu', 'e-2:products/update', 'products/update', '{}', '{"shopify-topic":"products/update"}', 'ab', true),
                    ('gh', 'g-1', 'issues.opened', '{}', '{"x-github-event":"issues"}', 'bb', true),
                    ('shopify', 's-old', 'orders/paid', '{}', '{"x-shopify-topic":"orders/paid"}', 'cc', null),
                    ('github', 'g-old', 'push', '{}', '{"x-github-event":"push"}', 'dd', null),
                    ('stripe', 'evt_1', 'invoice.paid', '{}', '{}', 'ee', null)`,
      );
      await db`insert into webhook_tombstone (source, event_id, received_at, body_sha256, body_key)
               values ('shop-eu', 'e-0:orders/create', now(), '\xaa', true)`;
      await db`insert into webhook_delivery (source, event_id, via, claimed) values ('shop-eu', 'e-1:orders/create', 'provider', true)`;

      // Up to 0026 alone: its re-run below is of a start interrupted within it, before any later view.
      expect(await migratePostgresFolder(url, migrationsUpTo("0026_body_key_scope"))).toEqual(["0026_body_key_scope"]);
      const keys = async () => [
        ...(await db`select source, event_id, body_is_key as key, body_scope as scope from webhook_event order by source, event_id`),
      ];
      const expected = [
        { source: "gh", event_id: "g-1", key: true, scope: "" },
        { source: "github", event_id: "g-old", key: true, scope: "" },
        { source: "shop-eu", event_id: "e-1:orders/create", key: true, scope: "orders/create" },
        { source: "shop-eu", event_id: "e-2:products/update", key: true, scope: "products/update" },
        { source: "shopify", event_id: "s-old", key: true, scope: "orders/paid" },
        { source: "stripe", event_id: "evt_1", key: null, scope: "" },
      ];
      expect(await keys()).toEqual(expected);
      const bodyIndexes = await indexesOf(db, "webhook_event_body");
      expect(bodyIndexes.webhook_event_body_scope_key_idx).toBe(
        "btree (source, body_scope, body_sha256) WHERE body_is_key",
      );
      expect(Object.keys(bodyIndexes).filter((n) => /unsigned_id|body_key_idx/.test(n))).toEqual([]);
      expect([...(await db`select body_scope from webhook_tombstone`)]).toEqual([{ body_scope: "" }]);
      expect([...(await db`select replaced from webhook_delivery`)]).toEqual([{ replaced: 0 }]);

      // Interrupted anywhere, the next start runs every statement again: each is a no-op once applied.
      const [step] = readMigrationSteps(MIGRATIONS_FOLDER).filter((m) => m.tag === "0026_body_key_scope");
      for (const statement of step!.statements) await db.unsafe(statement);
      expect(await keys()).toEqual(expected);

      // The key: the same body on another topic is another event; on its own topic a duplicate. The scope defaults
      // to the whole source.
      const plain = "source, event_id, event_type, raw_body, headers";
      const keyed = `${plain}, body_sha256, body_is_key, body_scope`;
      await seedEventsAt(
        url,
        keyed,
        dsql`values ('shop-eu', 'e-1:orders/paid', 'orders/paid', '{}', '{}', 'aa', true, 'orders/paid')`,
      );
      const duplicate = await seedEventsAt(
        url,
        keyed,
        dsql`values ('shop-eu', 'e-9:orders/create', 'orders/create', '{}', '{}', 'aa', true, 'orders/create')`,
      ).catch((err: unknown) => err);
      expect(sqlState(duplicate)).toBe("23505");
      await seedEventsAt(url, plain, dsql`values ('stripe', 'evt_2', 't', '{}', '{}')`);
      expect([...(await db`select body_scope from webhook_event_body where event_id = 'evt_2'`)]).toEqual([
        { body_scope: "" },
      ]);
      expect(await migratePostgresFolder(url, MIGRATIONS_FOLDER)).toEqual(tagsAfter("0026_body_key_scope"));
    } finally {
      await db.end();
    }
  });

  it("[migrate] 0028 marks test events: existing rows are not tests, the view reads the marker; re-runnable", async () => {
    const url = await freshDatabase("cc_test_events");
    await migratePostgresFolder(url, migrationsUpTo("0026_body_key_scope"));
    const db = connect(url);
    const columns = "source, event_id, event_type, raw_body, headers";
    try {
      await seedEventsAt(url, columns, dsql`values ('stripe', 'evt_before', 'invoice.paid', '{}', '{}')`);
      expect(await migratePostgresFolder(url, migrationsUpTo("0028_test_events"))).toEqual([
        "0027_forwarding",
        "0028_test_events",
      ]);
      const tests = async () => [...(await db`select event_id, test from webhook_event order by event_id`)];
      expect(await tests()).toEqual([{ event_id: "evt_before", test: false }]);
      expect((await indexesOf(db, "webhook_event_body")).webhook_event_test_idx).toBe(
        "btree (source, event_id) WHERE test",
      );
      const [step] = readMigrationSteps(MIGRATIONS_FOLDER).filter((m) => m.tag === "0028_test_events");
      for (const statement of step!.statements) await db.unsafe(statement);
      // The marker defaults to false, and the view reads what the body holds.
      await seedEventsAt(url, `${columns}, test`, dsql`values ('stripe', 'evt_test', 't', '{}', '{}', true)`);
      await seedEventsAt(url, columns, dsql`values ('stripe', 'evt_plain', 't', '{}', '{}')`);
      await db`update webhook_event_body set test = true where event_id = 'evt_before'`;
      expect(await tests()).toEqual([
        { event_id: "evt_before", test: true },
        { event_id: "evt_plain", test: false },
        { event_id: "evt_test", test: true },
      ]);
    } finally {
      await db.end();
    }
  });

  it("[migrate] 0030 leaves the webhook_event view read-only, its rows as they were, and drops what nothing uses; re-runnable", async () => {
    const url = await freshDatabase("cc_drop_unused");
    await migratePostgresFolder(url, migrationsUpTo("0029_attempt_error_detail"));
    const db = connect(url);
    const objects = async () =>
      (
        await db<{ triggers: number; functions: number; relations: string[] }[]>`
          select (select count(*)::int from pg_trigger where tgrelid = 'webhook_event'::regclass) as triggers,
                 (select count(*)::int from pg_proc where proname = 'webhook_event_write') as functions,
                 array(select relname::text from pg_class
                       where relname in ('subject_term_epoch', 'delivery_minute', 'delivery_rollup') order by 1) as relations`
      )[0];
    try {
      await seedEventsAt(
        url,
        "source, event_id, event_type, raw_body, headers, status, subject_ids",
        dsql`values ('stripe', 'evt_kept', 'invoice.paid', '{}', '{}', 'settled', '{cus_Kept0001}')`,
      );
      const before = await db`select * from webhook_event order by source, event_id`;
      expect(await objects()).toEqual({
        triggers: 1,
        functions: 1,
        relations: ["delivery_minute", "delivery_rollup", "subject_term_epoch"],
      });

      expect(await migratePostgresFolder(url, migrationsUpTo("0030_drop_unused"))).toEqual(["0030_drop_unused"]);
      const after = { triggers: 0, functions: 0, relations: [] };
      expect(await objects()).toEqual(after);
      expect(await db`select * from webhook_event order by source, event_id`).toEqual(before);
      await expect(
        db`insert into webhook_event (source, event_id, event_type, raw_body, headers) values ('stripe', 'e', 't', '{}', '{}')`,
      ).rejects.toMatchObject({ code: "55000" });

      // Interrupted anywhere, the next start runs every statement again: each is a no-op once applied.
      const [step] = readMigrationSteps(MIGRATIONS_FOLDER).filter((m) => m.tag === "0030_drop_unused");
      for (const statement of step!.statements) await db.unsafe(statement);
      expect(await objects()).toEqual(after);
    } finally {
      await db.end();
    }
  });

  it("[migrate] an INVALID index left by a failed concurrent build is dropped and built again", async () => {
    const url = await freshDatabase("cc_invalid");
    await migratePostgresFolder(url, migrationsUpTo("0003_replay"));
    const db = connect(url);
    try {
      await db`
        insert into webhook_event (source, event_id, event_type, payload, raw_body, headers)
        values ('stripe', 'evt_1', 'invoice.paid', '{}', '{}', '{}'),
               ('stripe', 'evt_2', 'invoice.paid', '{}', '{}', '{}')
      `;
      // What a build cut short leaves behind: an index of the migration's name, INVALID.
      await expect(
        db.unsafe(`CREATE UNIQUE INDEX CONCURRENTLY "webhook_event_type_idx" ON "webhook_event" ("event_type")`),
      ).rejects.toMatchObject({ code: "23505" });
      expect((await consoleIndexes(db)).webhook_event_type_idx).toMatchObject({ valid: false, unique: true });

      expect(await migratePostgresFolder(url, MIGRATIONS_FOLDER)).toEqual(tagsAfter("0003_replay"));
      const indexes = await consoleIndexes(db);
      expect(indexes.webhook_event_type_idx).toMatchObject({
        valid: true,
        ready: true,
        unique: false,
        def: TYPE_IDX_DEF,
      });
      expect(indexes.webhook_event_status_idx).toMatchObject({ valid: true, def: STATUS_IDX_DEF });
    } finally {
      await db.end();
    }
  });
});

describe("claims during an index build on a seeded ledger", () => {
  // Enough rows, with the builds held to one process and little sort memory, that each build takes seconds.
  const ROWS = 1_000_000;
  let url: string;
  let monitor: Sql;
  let claimer: Sql;

  beforeAll(async () => {
    url = await freshDatabase("cc_seeded");
    const name = new URL(url).pathname.slice(1);
    const owner = connect(url);
    await owner.unsafe(`alter database ${name} set max_parallel_maintenance_workers = 0`);
    await owner.unsafe(`alter database ${name} set maintenance_work_mem = '1MB'`);
    await owner.end();
    await migratePostgresFolder(url, migrationsUpTo("0003_replay"));
    monitor = connect(url);
    claimer = connect(url);
    await monitor`
      insert into webhook_event (source, event_id, event_type, payload, raw_body, headers, status, received_at)
      select 'stripe',
             'evt_seed_' || lpad(g::text, 20, '0'),
             (array['invoice.paid', 'customer.subscription.updated', 'charge.refunded', 'invoice.payment_failed'])[1 + g % 4],
             '{}', '{}', '{}',
             case when g % 10 = 0 then 'failed' else 'settled' end,
             timestamptz '2026-01-01' + (g::bigint * 7919 % ${ROWS}) * interval '1 second'
      from generate_series(1, ${ROWS}) g
    `;
    await monitor`analyze webhook_event`;
  }, 180_000);

  afterAll(async () => {
    await monitor?.end();
    await claimer?.end();
  });

  /** The index build on webhook_event in progress, if any. */
  async function buildInProgress(): Promise<{ command: string; phase: string; index: string | null } | undefined> {
    const [row] = await monitor<{ command: string; phase: string; index: string | null }[]>`
      select p.command, p.phase, c.relname as index
      from pg_stat_progress_create_index p
      left join pg_class c on c.oid = p.index_relid
      where p.datname = current_database()
        and p.relid in (to_regclass('webhook_event'), to_regclass('webhook_event_body'), to_regclass('webhook_event_state'))
    `;
    return row;
  }

  async function waitForBuilding(): Promise<{ command: string; index: string | null }> {
    const until = Date.now() + 30_000;
    for (;;) {
      const build = await buildInProgress();
      if (build?.phase.startsWith("building index")) return build;
      if (Date.now() > until) throw new Error("no index build on webhook_event reached its build phase");
      await sleep(5);
    }
  }

  /**
   * The claim (lib/intake/claim.ts) as one plain statement: the ledger row, which is the lock, and the delivery row.
   * Before 0022 the ledger row is webhook_event; from 0022 on, its body and its state.
   */
  async function claim(eventId: string, eventType: string): Promise<boolean> {
    const [split] = await claimer<{ split: boolean }[]>`select to_regclass('webhook_event_body') is not null as split`;
    const [row] = await claimer.begin(async (tx) => {
      await tx`set local lock_timeout = '200ms'`;
      if (split?.split)
        return tx<{ claimed: boolean }[]>`
          with body as (
            insert into webhook_event_body (source, event_id, payload, raw_body, headers, subject_ids, via)
            values ('stripe', ${eventId}, '{"object":"event"}'::jsonb, '{"object":"event"}', '{}'::jsonb, '{cus_1}', 'provider')
            on conflict (source, event_id) do nothing
            returning source, event_id
          ), claim as (
            insert into webhook_event_state (source, event_id, event_type) select source, event_id, ${eventType} from body
            returning source, event_id
          )
          insert into webhook_delivery (source, event_id, via, claimed, reprocessed)
          select 'stripe', ${eventId}, 'provider', exists (select 1 from claim), false
          returning claimed
        `;
      return tx<{ claimed: boolean }[]>`
        with claim as (
          insert into webhook_event (source, event_id, event_type, payload, raw_body, headers, subject_ids, via, next_trigger)
          values ('stripe', ${eventId}, ${eventType}, '{"object":"event"}'::jsonb, '{"object":"event"}', '{}'::jsonb, '{cus_1}', 'provider', 'auto')
          on conflict (source, event_id) do nothing
          returning source, event_id
        )
        insert into webhook_delivery (source, event_id, via, claimed, reprocessed)
        select 'stripe', ${eventId}, 'provider', exists (select 1 from claim), false
        returning claimed
      `;
    });
    return row?.claimed === true;
  }

  it("[migrate] a claim completes while an index on webhook_event is being built concurrently", async () => {
    let finished = false;
    const migration = migratePostgresFolder(url, MIGRATIONS_FOLDER).finally(() => {
      finished = true;
    });
    try {
      const build = await waitForBuilding();
      expect(await claim("evt_during_build", "invoice.payment_succeeded")).toBe(true);
      expect(finished).toBe(false);
      expect(build).toMatchObject({ command: "CREATE INDEX CONCURRENTLY", index: "webhook_event_type_idx" });
      expect(await buildInProgress()).toMatchObject({ command: "CREATE INDEX CONCURRENTLY" });
    } finally {
      await migration;
    }

    expect(await migration).toEqual(tagsAfter("0003_replay"));
    const indexes = await consoleIndexes(monitor);
    expect(indexes.webhook_event_type_idx).toMatchObject({ valid: true, def: TYPE_IDX_DEF });
    expect(indexes.webhook_event_status_idx).toMatchObject({ valid: true, def: STATUS_IDX_DEF });
    // The build's validation pass took in the row claimed mid-build: the index finds it.
    const [found] = await monitor.begin(async (tx) => {
      await tx`set local enable_seqscan = off`;
      return tx<
        { n: number }[]
      >`select count(*)::int as n from webhook_event where event_type = 'invoice.payment_succeeded'`;
    });
    expect(found?.n).toBe(1);
    // A hang guard: the build and its validation pass over the seeded ledger took 60 s beside the other tiers.
  }, 240_000);

  it("[migrate] a plain CREATE INDEX of the same kind makes that claim wait (lock_timeout 200 ms: 55P03)", async () => {
    const builder = connect(url);
    try {
      // execute(): a postgres.js query otherwise waits to be awaited before it is sent.
      const plainBuild = builder
        .unsafe(
          `
          CREATE INDEX "webhook_event_type_plain_idx"
          ON "webhook_event_state" USING btree ("event_type", "received_at", "event_id", "source")
        `,
        )
        .execute();
      expect(await waitForBuilding()).toMatchObject({ command: "CREATE INDEX" });
      await expect(claim("evt_during_plain_build", "invoice.paid")).rejects.toMatchObject({ code: "55P03" });
      expect(await buildInProgress()).toMatchObject({ command: "CREATE INDEX" });
      await plainBuild;
      await builder`drop index "webhook_event_type_plain_idx"`;
    } finally {
      await builder.end();
    }
  });
});

describe("migrator on PGlite", () => {
  it("[pglite] migratePglite applies every migration, builds the console indexes, and is a no-op the second time", async () => {
    const handle = await connectPglite("memory://");
    try {
      await migratePglite(handle);
      const count = async () =>
        rowsOf<{ n: number }>(
          await handle.db.execute(dsql`select count(*)::int as n from drizzle.__drizzle_migrations`),
        )[0]?.n;
      expect(await count()).toBe(tags.length);
      const indexes = rowsOf<{ name: string; valid: boolean }>(
        await handle.db.execute(dsql`
          select c.relname as name, i.indisvalid as valid
          from pg_index i
          join pg_class c on c.oid = i.indexrelid
          where c.relname in ('webhook_event_type_idx', 'webhook_event_status_idx')
          order by c.relname
        `),
      );
      expect(indexes).toEqual([
        { name: "webhook_event_status_idx", valid: true },
        { name: "webhook_event_type_idx", valid: true },
      ]);
      await migratePglite(handle);
      expect(await count()).toBe(tags.length);
    } finally {
      await handle.close();
    }
  });
});
