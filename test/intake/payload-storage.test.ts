import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { rowsOf } from "@/db/client";
import type { ClaimInput } from "@/lib/intake/claim";
import { describeError, isDataError } from "@/lib/errors";
import { getEventDetail } from "@/lib/console/event-detail";
import { leaseDue } from "@/lib/ledger/lease";
import { subjectEvents } from "@/lib/console/subject";
import { claimOne } from "@/test/claim";
import { setupTestDb } from "../db";
import { seedEvents } from "@/test/seed-events";

const { db } = setupTestDb();

const admin = { id: "u-1", email: "admin@example.com", role: "admin" as const };

const input = (eventId: string, rawBody: string): ClaimInput => ({
  source: "stripe",
  eventId,
  eventType: "invoice.paid",
  rawBody,
  headers: {},
  subjectIds: ["cus_Stored1"],
});

const stored = async (eventId: string) =>
  rowsOf<{ copy: boolean; raw: string; derived: unknown }>(
    await db.execute(sql`select payload is not null as copy, raw_body as raw,
                                coalesce(payload, raw_body::jsonb) as derived
                         from webhook_event where event_id = ${eventId}`),
  )[0];

describe("one stored copy of a payload", () => {
  it("[ledger] an ordinary event keeps its raw body only; the worker, the event page and the customer view read it parsed", async () => {
    // Spacing and key order as a provider sends them: the raw body stays byte for byte.
    const raw =
      '{ "id": "evt_plain", "created": 1712917130,\n  "data": {"object": {"object": "invoice", ' +
      '"customer": "cus_Stored1", "amount_paid": 2000, "currency": "usd"}}}';
    await claimOne(db, input("evt_plain", raw));
    expect(await stored("evt_plain")).toMatchObject({ copy: false, raw });

    const [leased] = await leaseDue(db, { workerId: "w", leaseMs: 30_000, limit: 10 });
    expect(leased?.payload).toEqual(JSON.parse(raw));

    const detail = await getEventDetail(db, admin, { source: "stripe", eventId: "evt_plain" }, async () => undefined);
    expect(detail.event.payload).toEqual(JSON.parse(raw));
    expect(detail.event.rawBody).toBe(raw);

    // The customer view's facts (provider time, amount) are read from the payload in SQL.
    const [row] = await subjectEvents(db, [{ source: "stripe", eventId: "evt_plain" }], async () => undefined);
    expect(row?.providerTime?.at).toMatch(/^2024-04-12T10:18:50/);
    expect(row?.amount).not.toBeNull();
  });

  it("[ledger] a body jsonb cannot hold as it is (\\u0000) keeps a cleaned copy, and every reader reads the copy", async () => {
    const raw = '{"id":"evt_nul","data":{"object":{"object":"invoice","customer":"cus_Stored1","note":"a\\u0000b"}}}';
    await claimOne(db, input("evt_nul", raw));
    const row = await stored("evt_nul");
    expect(row).toMatchObject({ copy: true, raw });
    expect(row?.derived).toMatchObject({ data: { object: { note: "a\uFFFDb" } } });

    const [leased] = await leaseDue(db, { workerId: "w", leaseMs: 30_000, limit: 10 });
    expect(leased?.payload).toMatchObject({ data: { object: { note: "a\uFFFDb" } } });
    const detail = await getEventDetail(db, admin, { source: "stripe", eventId: "evt_nul" }, async () => undefined);
    expect(detail.event.payload).toMatchObject({ data: { object: { note: "a\uFFFDb" } } });
  });

  it("[ledger] a body PostgreSQL cannot parse is still refused at the claim and nothing is written", async () => {
    // 17,000 digits after the point: JSON.parse reads it (as 0), numeric holds at most 16,383, and the
    // text has no exponent, so only PostgreSQL's own parse can tell.
    const raw = `{"id":"evt_digits","amount":0.${"0".repeat(17_000)}1}`;
    const err: unknown = await claimOne(db, input("evt_digits", raw)).then(
      () => undefined,
      (e: unknown) => e,
    );
    // A data error (class 22): the receiver answers it 400 for this delivery alone (lib/intake/batcher.ts).
    expect(isDataError(err)).toBe(true);
    expect(describeError(err)).toMatch(/numeric/);
    const [n] = rowsOf<{ n: number }>(await db.execute(sql`select count(*)::int as n from webhook_event`));
    expect(n?.n).toBe(0);
  });

  it("[ledger] a row claimed before the copy became optional keeps it, and readers still prefer it", async () => {
    await seedEvents(
      db,
      "source, event_id, event_type, payload, raw_body, headers",
      sql`values ('stripe', 'evt_old', 'invoice.paid', '{"id":"evt_old","from":"copy"}', '{"id":"evt_old","from":"raw"}', '{}')`,
    );
    const [leased] = await leaseDue(db, { workerId: "w", leaseMs: 30_000, limit: 10 });
    expect(leased?.payload).toEqual({ id: "evt_old", from: "copy" });
  });
});
