import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { rowsOf } from "@/db/client";
import type { ClaimInput } from "@/lib/intake/claim";
import { claimOne } from "@/test/claim";
import { setupTestDb } from "../db";

const { db } = setupTestDb();

const input = (over: Partial<ClaimInput> = {}): ClaimInput => ({
  source: "stripe",
  eventId: "evt_1",
  eventType: "customer.subscription.updated",
  rawBody: '{"id":"evt_1","data":{"object":{"id":"sub_1","customer":"cus_1"}}}',
  headers: { "stripe-signature": "t=1,v1=ab" },
  entityType: "subscription",
  entityId: "sub_1",
  entityVersion: 1_700_000_000,
  subjectIds: ["sub_1", "cus_1", 'we"ird\\id'],
  ...over,
});

describe("claimEvents", () => {
  it("[ledger] the first delivery claims the event and stores it whole", async () => {
    expect(await claimOne(db, input())).toEqual({ claimed: true, reprocessed: false });
    const [row] = rowsOf<Record<string, unknown>>(
      await db.execute(sql`select status, attempts, via, raw_body, entity_version, subject_ids,
        payload is null as no_copy, jsonb_typeof(headers) as headers_type,
        (raw_body::jsonb)->'data'->'object'->>'customer' as customer
        from webhook_event`),
    );
    expect(row).toMatchObject({
      status: "claimed",
      attempts: 0,
      via: "provider",
      raw_body: input().rawBody,
      no_copy: true, // the raw body is the payload (db/payload.ts)
      headers_type: "object",
      customer: "cus_1",
      subject_ids: ["sub_1", "cus_1", 'we"ird\\id'],
    });
    expect(Number(row?.entity_version)).toBe(1_700_000_000);
  });

  it("[ledger] a duplicate is not claimed, adds no event row, and is recorded as a delivery", async () => {
    await claimOne(db, input());
    expect(await claimOne(db, input({ rawBody: '{"id":"evt_1","changed":true}' }))).toEqual({
      claimed: false,
      reprocessed: false,
    });
    const events = rowsOf<{ n: number; raw: string }>(
      await db.execute(sql`select count(*)::int as n, min(raw_body) as raw from webhook_event`),
    );
    expect(events[0]).toEqual({ n: 1, raw: input().rawBody });
    const deliveries = rowsOf<{ claimed: boolean }>(
      await db.execute(sql`select claimed from webhook_delivery order by id`),
    );
    expect(deliveries.map((d) => d.claimed)).toEqual([true, false]);
  });

  it("[ledger] the same event id from another source is a different event", async () => {
    await claimOne(db, input());
    expect(await claimOne(db, input({ source: "paddle" }))).toEqual({ claimed: true, reprocessed: false });
  });

  it("[ledger] a payload holding \\u0000 keeps its exact raw body and gets a storable jsonb copy", async () => {
    const raw = '{"id":"evt_nul","note":"a\\u0000b"}';
    await claimOne(db, input({ eventId: "evt_nul", rawBody: raw }));
    const [row] = rowsOf<{ raw_body: string; note: string }>(
      await db.execute(sql`select raw_body, payload->>'note' as note from webhook_event`),
    );
    expect(row).toEqual({ raw_body: raw, note: "a\uFFFDb" });
  });

  it("[ledger] a replayed event is marked via replay", async () => {
    await claimOne(db, input({ via: "replay" }));
    const [row] = rowsOf<{ via: string }>(await db.execute(sql`select via from webhook_event`));
    expect(row?.via).toBe("replay");
  });

  it("[ledger] escapes and numbers jsonb refuses (a lone surrogate, an exponent past numeric's range) keep the raw body and get a storable copy", async () => {
    const raw = '{"id":"evt_odd","note":"a\\ud800b","\\u0000key":1,"big":1e999999}';
    expect(await claimOne(db, input({ eventId: "evt_odd", rawBody: raw }))).toEqual({
      claimed: true,
      reprocessed: false,
    });
    const [row] = rowsOf<{ raw_body: string; note: string; big: unknown; keys: string[] }>(
      await db.execute(sql`select raw_body, payload->>'note' as note, payload->'big' as big,
        array(select jsonb_object_keys(payload)) as keys from webhook_event`),
    );
    expect(row).toEqual({
      raw_body: raw,
      note: "a\uFFFDb",
      big: null,
      keys: expect.arrayContaining(["\uFFFDkey"]) as unknown,
    });
  });
});
