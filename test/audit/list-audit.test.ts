import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { rowsOf } from "@/db/client";
import { listAudit, listAuditActions } from "@/lib/audit/log";
import { parseUtcBound } from "@/lib/audit/log";
import type { Actor } from "@/lib/roles";
import { ValidationError } from "@/lib/errors";
import { setupTestDb } from "../db";

const { db } = setupTestDb();
const support: Actor = { id: "u-support", email: "support@example.com", role: "support" };

/** n rows, one a minute from 2026-01-01 00:00 UTC, oldest first; actor, action and result cycle. */
async function seed(n: number) {
  await db.execute(sql`
    insert into audit_log (at, actor_id, actor_email, action, target, detail, result)
    select timestamptz '2026-01-01 00:00:00+00' + (i - 1) * interval '1 minute',
           null,
           (array['ann@example.com', 'bob@example.com'])[1 + i % 2],
           (array['events.requeue', 'users.create', 'auth.sign-in'])[1 + i % 3],
           'event:stripe/evt_' || i,
           jsonb_build_object('i', i),
           (array['ok', 'ok', 'refused', 'error'])[1 + i % 4]
    from generate_series(1, ${n}) as i`);
}
const ids = (rows: { detail: Record<string, unknown> }[]) => rows.map((r) => r.detail.i as number);
const range = (from: number, to: number) =>
  Array.from({ length: Math.abs(to - from) + 1 }, (_, k) => (from > to ? from - k : from + k));

describe("listAudit", () => {
  it("[audit] newest first; Older and Newer walk the keyset both ways and come back to the same first page", async () => {
    await seed(25);
    const first = await listAudit(db, support, { limit: 10 });
    expect(ids(first.rows)).toEqual(range(25, 16));
    expect(first.newerCursor).toBeUndefined();
    const second = await listAudit(db, support, { limit: 10, before: first.olderCursor });
    expect(ids(second.rows)).toEqual(range(15, 6));
    const third = await listAudit(db, support, { limit: 10, before: second.olderCursor });
    expect(ids(third.rows)).toEqual(range(5, 1));
    expect(third.olderCursor).toBeUndefined();
    const back = await listAudit(db, support, { limit: 10, after: third.newerCursor });
    expect(ids(back.rows)).toEqual(range(15, 6));
    expect(back.olderCursor).toBeDefined();
    // Newer than the second page's top is the first page, whole, and says it is the newest.
    const top = await listAudit(db, support, { limit: 10, after: back.newerCursor });
    expect(ids(top.rows)).toEqual(range(25, 16));
    expect(top.newerCursor).toBeUndefined();
  });

  it("[audit] rows with the same time are ordered and paged by id, none skipped or repeated", async () => {
    await db.execute(sql`
      insert into audit_log (at, actor_email, action, target, detail, result)
      select timestamptz '2026-01-01 00:00:00.123456+00', 'ann@example.com', 'x.same', 't', jsonb_build_object('i', i), 'ok'
      from generate_series(1, 7) as i`);
    const seen: number[] = [];
    let page = await listAudit(db, support, { limit: 3 });
    seen.push(...ids(page.rows));
    while (page.olderCursor) {
      page = await listAudit(db, support, { limit: 3, before: page.olderCursor });
      seen.push(...ids(page.rows));
    }
    expect(seen).toEqual(range(7, 1));
  });

  it("[audit] filters by actor (case-insensitive email), action, outcome and a UTC time range, each with paging", async () => {
    await seed(60);
    const all = rowsOf<{ i: number; actor_email: string; action: string; result: string; at: Date }>(
      await db.execute(
        sql`select (detail->>'i')::int as i, actor_email, action, result, at from audit_log order by at desc, id desc`,
      ),
    );
    const expectFilter = async (input: Parameters<typeof listAudit>[2], keep: (r: (typeof all)[number]) => boolean) => {
      const got: number[] = [];
      let page = await listAudit(db, support, { ...input, limit: 4 });
      got.push(...ids(page.rows));
      while (page.olderCursor) {
        page = await listAudit(db, support, { ...input, limit: 4, before: page.olderCursor });
        got.push(...ids(page.rows));
      }
      expect(got, JSON.stringify(input)).toEqual(all.filter(keep).map((r) => r.i));
    };
    await expectFilter({ actor: " Ann@Example.com " }, (r) => r.actor_email === "ann@example.com");
    await expectFilter({ action: "users.create" }, (r) => r.action === "users.create");
    await expectFilter({ result: "refused" }, (r) => r.result === "refused");
    await expectFilter(
      { actor: "bob@example.com", action: "auth.sign-in", result: "ok" },
      (r) => r.actor_email === "bob@example.com" && r.action === "auth.sign-in" && r.result === "ok",
    );
    // "to 00:10" includes the whole minute 00:10; "from" is inclusive.
    await expectFilter({ from: "2026-01-01 00:05", to: "2026-01-01 00:10" }, (r) => r.i >= 6 && r.i <= 11);
    await expectFilter({ to: "2026-01-01" }, () => true);
    await expectFilter({ from: "2026-01-02" }, () => false);
    // Empty fields are no filter.
    await expectFilter({ actor: "", action: "", result: "", from: "", to: "" }, () => true);
  });

  it("[audit] a forged or edited cursor is a ValidationError naming the cursor, never a database error", async () => {
    await seed(3);
    const forge = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");
    for (const cursor of [
      "garbage",
      "12345",
      forge(["2026-01-01 00:00:00+00"]),
      forge(["2026-01-01 00:00:00+00", 0]),
      forge(["2026-01-01 00:00:00+00", 2 ** 63]),
      forge(["not a time", 1]),
      forge({ at: "2026-01-01 00:00:00+00", id: 1 }),
    ]) {
      for (const key of ["before", "after"] as const) {
        const err = await listAudit(db, support, { [key]: cursor }).catch((e: unknown) => e);
        expect(err, `${key}=${cursor}`).toBeInstanceOf(ValidationError);
        expect((err as ValidationError).field).toBe("cursor");
        expect((err as ValidationError).message).toMatch(/page link is damaged/);
      }
    }
  });

  it("[audit] a bad filter is a ValidationError a person can act on", async () => {
    const message = async (input: Parameters<typeof listAudit>[2]) =>
      ((await listAudit(db, support, input).catch((e: unknown) => e)) as ValidationError).message;
    expect(await message({ result: "maybe" })).toMatch(/unknown outcome "maybe"/);
    expect(await message({ from: "yesterday" })).toMatch(/From: "yesterday" is not a UTC date and time/);
    expect(await message({ to: "2026-02-30" })).toMatch(/To: "2026-02-30" is not a UTC date and time/);
    expect(await message({ from: "2026-01-02", to: "2026-01-01" })).toMatch(/must be before/);
    expect(await message({ actor: "a\u0000b" })).toMatch(/U\+0000/);
  });

  it("[audit] the action menu lists each recorded action once, in order", async () => {
    await seed(9);
    expect(await listAuditActions(db, support)).toEqual(["auth.sign-in", "events.requeue", "users.create"]);
  });

  it("[audit] reading the log needs a signed-in user", async () => {
    await expect(listAudit(db, undefined)).rejects.toThrow(/may not audit: read/);
    await expect(listAuditActions(db, undefined)).rejects.toThrow(/may not audit: read/);
  });

  it("[audit] every filter is served by an index in (at, id) order, not a scan and sort", async () => {
    await seed(200);
    await db.execute(sql`analyze audit_log`);
    // 200 rows: the planner would rather read them all and sort; with that ruled out it must find the index.
    await db.transaction(async (tx) => {
      await tx.execute(sql`set local enable_seqscan = off`);
      await tx.execute(sql`set local enable_bitmapscan = off`);
      await tx.execute(sql`set local enable_sort = off`);
      for (const where of [
        sql`true`,
        sql`actor_email = 'ann@example.com'`,
        sql`action = 'users.create'`,
        sql`result = 'error'`,
      ]) {
        const plan = rowsOf<{ "QUERY PLAN": string }>(
          await tx.execute(sql`explain select * from audit_log where ${where} order by at desc, id desc limit 51`),
        )
          .map((r) => r["QUERY PLAN"])
          .join("\n");
        expect(plan).toMatch(/Index Scan Backward using audit_log_(at_id|actor|action|result)_idx/);
        expect(plan).not.toMatch(/Sort/);
      }
    });
  });
});

describe("parseUtcBound", () => {
  it("[audit] reads dates and 24 h times as UTC; an end covers the whole day, minute or second typed", () => {
    expect(parseUtcBound("2026-11-29", "start", "From").toISOString()).toBe("2026-11-29T00:00:00.000Z");
    expect(parseUtcBound("2026-11-29", "end", "To").toISOString()).toBe("2026-11-30T00:00:00.000Z");
    expect(parseUtcBound("2026-11-29 23:59", "end", "To").toISOString()).toBe("2026-11-30T00:00:00.000Z");
    expect(parseUtcBound("2026-11-29T14:30:05Z", "end", "To").toISOString()).toBe("2026-11-29T14:30:06.000Z");
    for (const bad of ["2026-11-29 24:00", "2026-11-29 10:60", "11/29/2026", "2026-11-29 2:30 PM", ""])
      expect(() => parseUtcBound(bad, "start", "From"), bad).toThrow(ValidationError);
  });
});
