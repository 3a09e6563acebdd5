import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { rowsOf } from "@/db/client";
import { ingestEvent, type IngestInput } from "@/lib/ledger/ingest";
import { setupTestDb } from "../db";

const { db } = setupTestDb();

const input = (over: Partial<IngestInput> = {}): IngestInput => ({
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

describe("ingestEvent", () => {
  it("[ledger] the first delivery claims the event and stores it whole", async () => {
    expect(await ingestEvent({ db, input: input() })).toEqual({ claimed: true, reprocessed: false });
    const [row] = rowsOf<Record<string, unknown>>(
      await db.execute(sql`select status, attempts, via, raw_body, entity_version, subject_ids,
        jsonb_typeof(payload) as payload_type, jsonb_typeof(headers) as headers_type, payload->'data'->'object'->>'customer' as customer
        from webhook_event`),
    );
    expect(row).toMatchObject({
      status: "claimed",
      attempts: 0,
      via: "provider",
      raw_body: input().rawBody,
      payload_type: "object",
      headers_type: "object",
      customer: "cus_1",
      subject_ids: ["sub_1", "cus_1", 'we"ird\\id'],
    });
    expect(Number(row?.entity_version)).toBe(1_700_000_000);
  });

  it("[ledger] a duplicate is not claimed, adds no event row, and is recorded as a delivery", async () => {
    await ingestEvent({ db, input: input() });
    expect(await ingestEvent({ db, input: input({ rawBody: '{"id":"evt_1","changed":true}' }) })).toEqual({ claimed: false, reprocessed: false });
    const events = rowsOf<{ n: number; raw: string }>(await db.execute(sql`select count(*)::int as n, min(raw_body) as raw from webhook_event`));
    expect(events[0]).toEqual({ n: 1, raw: input().rawBody });
    const deliveries = rowsOf<{ claimed: boolean }>(await db.execute(sql`select claimed from webhook_delivery order by id`));
    expect(deliveries.map((d) => d.claimed)).toEqual([true, false]);
  });

  it("[ledger] the same event id from another source is a different event", async () => {
    await ingestEvent({ db, input: input() });
    expect(await ingestEvent({ db, input: input({ source: "paddle" }) })).toEqual({ claimed: true, reprocessed: false });
  });

  it("[ledger] a payload holding \\u0000 keeps its exact raw body and gets a storable jsonb copy", async () => {
    const raw = '{"id":"evt_nul","note":"a\\u0000b"}';
    await ingestEvent({ db, input: input({ eventId: "evt_nul", rawBody: raw }) });
    const [row] = rowsOf<{ raw_body: string; note: string }>(
      await db.execute(sql`select raw_body, payload->>'note' as note from webhook_event`),
    );
    expect(row).toEqual({ raw_body: raw, note: "a\uFFFDb" });
  });

  it("[ledger] a replayed event is marked via replay", async () => {
    await ingestEvent({ db, input: input({ via: "replay" }) });
    const [row] = rowsOf<{ via: string }>(await db.execute(sql`select via from webhook_event`));
    expect(row?.via).toBe("replay");
  });
});
