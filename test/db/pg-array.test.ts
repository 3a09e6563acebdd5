import { sql } from "drizzle-orm";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { rowsOf } from "@/db/client";
import { pgArray, pgArrays } from "@/db/pg-array";
import { insertTransitions } from "@/lib/ledger/transition-insert";
import { setupTestDb } from "../db";

const { db } = setupTestDb();

// Strings PostgreSQL's text type can hold (no U+0000), with the array literal's own syntax over-represented.
const pgText = fc
  .array(
    fc.oneof(
      fc.constantFrom('"', "\\", ",", "{", "}", " ", "NULL", "null", "'", "\n"),
      fc.string({ unit: "grapheme" }),
    ),
    {
      maxLength: 6,
    },
  )
  .map((parts) => parts.join("").replaceAll("\u0000", ""));

describe("array parameters", () => {
  it("[db] any text values (quotes, backslashes, braces, the word NULL, unicode, nulls) come back as they went", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.option(pgText, { nil: null }), { maxLength: 20 }), async (values) => {
        const [row] = rowsOf<{ back: (string | null)[] | null }>(
          await db.execute(
            sql`select array(select x from unnest(${pgArray(values, "text")}) with ordinality t(x, n) order by n) as back`,
          ),
        );
        // postgres.js reads a NULL element of text[] back as the string "NULL": compare element by element in SQL instead.
        const expected = values.length
          ? sql`array[${sql.join(
              values.map((v) => sql`${v}::text`),
              sql`, `,
            )}]`
          : sql`'{}'::text[]`;
        const [same] = rowsOf<{ ok: boolean }>(
          await db.execute(sql`select ${pgArray(values, "text")} is not distinct from ${expected} as ok`),
        );
        expect(row!.back?.length ?? 0).toBe(values.length);
        expect(same!.ok).toBe(true);
      }),
      { numRuns: 60 },
    );
  });

  it("[db] pgArrays binds each column as one array, in order", async () => {
    const [row] = rowsOf<{ a: string; b: number }>(
      await db.execute(
        sql`select * from unnest(${pgArrays([
          [["x", 'y"'], "text"],
          [[1, 2], "int"],
        ])}) as t(a, b) where b = 2`,
      ),
    );
    expect(row).toEqual({ a: 'y"', b: 2 });
  });

  it("[worker] a batch's timeline rows keep their order, and each row its own changes, whatever they hold", async () => {
    const changes: Record<string, { from: unknown; to: unknown }>[] = [
      { status: { from: "active", to: 'past "due" \\ now' } },
      {},
      { plan: { from: null, to: "price_{1},2" }, n: { from: 1, to: 2.5 } },
    ];
    await insertTransitions(
      db,
      changes.map((c, i) => ({
        source: "stripe",
        entityType: "subscription",
        entityId: `sub_${i}`,
        eventId: `evt_${i}`,
        version: i === 1 ? null : 100 + i,
        outcome: i === 1 ? ("stale" as const) : ("applied" as const),
        changes: c,
        note: i === 1 ? 'older: "quoted" note' : null,
        priorVersion: i === 2 ? 7 : null,
        priorEventId: i === 2 ? "evt_prior" : null,
        resolution: i === 2 ? ("chain" as const) : null,
      })),
    );
    const rows = rowsOf<Record<string, unknown>>(
      await db.execute(sql`select entity_id, event_id, version::int, outcome, changes, note, prior_version::int, prior_event_id, resolution
                           from entity_transition order by id`),
    );
    expect(rows).toEqual([
      {
        entity_id: "sub_0",
        event_id: "evt_0",
        version: 100,
        outcome: "applied",
        changes: changes[0],
        note: null,
        prior_version: null,
        prior_event_id: null,
        resolution: null,
      },
      {
        entity_id: "sub_1",
        event_id: "evt_1",
        version: null,
        outcome: "stale",
        changes: {},
        note: 'older: "quoted" note',
        prior_version: null,
        prior_event_id: null,
        resolution: null,
      },
      {
        entity_id: "sub_2",
        event_id: "evt_2",
        version: 102,
        outcome: "applied",
        changes: changes[2],
        note: null,
        prior_version: 7,
        prior_event_id: "evt_prior",
        resolution: "chain",
      },
    ]);
  });
});
