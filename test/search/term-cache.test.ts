import { sql } from "drizzle-orm";
import { beforeEach, describe, expect, it } from "vitest";
import type { Actor } from "@/lib/auth/roles";
import { leaseDue } from "@/lib/ledger/lease";
import { listEvents } from "@/lib/ledger/list-events";
import { processLeased } from "@/lib/ledger/process";
import { recordSubjectTerms } from "@/lib/ledger/subject-terms";
import { createTermCache, termKey, type TermCache } from "@/lib/ledger/term-cache";
import { eraseSubject } from "@/lib/retention/erase";
import { stripeInvoicePaidEvent } from "@/test/fixtures/stripe";
import { setupTestDb } from "../db";
import { claim, query, testSettings } from "../worker/helpers";

const { db } = setupTestDb();
const support: Actor = { id: "s1", email: "support@example.com", role: "support" };
const admin: Actor = { id: "a1", email: "admin@example.com", role: "admin" };

beforeEach(async () => {
  await db.execute(sql`truncate subject_term`);
});

const ids = async (q: string) => (await listEvents(db, support, { filter: { q } })).rows.map((r) => r.eventId).sort();
const termsOf = (subject: string) =>
  query<{ term: string }>(db, sql`select term from subject_term where subject = ${subject} order by term`);

function invoice(eventId: string, customerId: string, name: string) {
  const event = stripeInvoicePaidEvent({
    eventId,
    customerId,
    customerEmail: `${customerId}@example.com`,
    invoiceId: `in_1${eventId}X`,
  });
  return { ...event, data: { object: { ...event.data.object, customer_name: name } } };
}

/** What the worker does with its batches, with its directory cache. */
async function drainWith(terms: TermCache) {
  const settings = testSettings();
  const batch = await leaseDue(db, { workerId: "w", leaseMs: 30_000, limit: 50 });
  return processLeased(db, batch, { policy: settings.policy, handlers: settings.handlers, terms });
}

describe("the worker's search-directory cache", () => {
  it("[search] a settle does not send the directory rows its process saw committed, and sends them again once the epoch moves", async () => {
    const terms = createTermCache();
    await claim(db, "stripe", invoice("evt_tc1", "cus_Cache000001", "Cora Cached"));
    await drainWith(terms);
    expect(await ids("cora")).toEqual(["evt_tc1"]);
    expect(terms.has(termKey("Cora Cached", "cus_Cache000001"))).toBe(true);

    // Rows deleted behind the epoch's back: the next settle of the same customer does not send them (the skip).
    await db.execute(sql`delete from subject_term where subject = 'cus_Cache000001'`);
    await claim(db, "stripe", invoice("evt_tc2", "cus_Cache000001", "Cora Cached"));
    await drainWith(terms);
    expect(await termsOf("cus_Cache000001")).toEqual([]);

    // The epoch moves (as an erasure moves it): the cache is emptied and everything is sent.
    await db.execute(sql`select nextval('subject_term_epoch')`);
    await claim(db, "stripe", invoice("evt_tc3", "cus_Cache000001", "Cora Cached"));
    await drainWith(terms);
    expect((await termsOf("cus_Cache000001")).map((t) => t.term)).toContain("cora cached");
    expect(await ids("cora")).toEqual(["evt_tc1", "evt_tc2", "evt_tc3"]);
  });

  it("[search] after an erasure, the customer's next event is searchable again through a worker that had cached its terms", async () => {
    const terms = createTermCache();
    await claim(db, "stripe", invoice("evt_te1", "cus_Erase000009", "Erin Rased"));
    await drainWith(terms);
    expect(await ids("erin")).toEqual(["evt_te1"]);

    await eraseSubject({ db, actor: admin, input: { subject: "cus_Erase000009" } });
    expect(await ids("erin")).toEqual([]);

    // A new delivery for the same customer after the request: the erasure advanced the epoch, so it is indexed.
    await claim(db, "stripe", invoice("evt_te2", "cus_Erase000009", "Erin Rased"));
    await drainWith(terms);
    expect(await ids("erin")).toEqual(["evt_te2"]);
    expect(await ids("cus_Erase00000")).toEqual(["evt_te2"]);
  });

  it("[search] rows of a transaction that rolled back are not remembered", async () => {
    const terms = createTermCache();
    const source = { payload: invoice("evt_tr1", "cus_Roll0000001", "Rolf Back"), subjectIds: ["cus_Roll0000001"] };
    await expect(
      db.transaction(async (tx) => {
        await recordSubjectTerms(tx, [source], terms);
        throw new Error("rolled back");
      }),
    ).rejects.toThrow("rolled back");
    expect(terms.size).toBe(0);
    // So the next transaction sends them, and they are there.
    const committed = await db.transaction((tx) => recordSubjectTerms(tx, [source], terms));
    committed();
    expect((await termsOf("cus_Roll0000001")).map((t) => t.term)).toContain("rolf back");
    expect(terms.has(termKey("Rolf Back", "cus_Roll0000001"))).toBe(true);
  });

  it("[search] the cache is bounded: past its size the oldest keys go first", () => {
    const terms = createTermCache(3);
    terms.reset("1");
    terms.remember(["a", "b", "c", "d"], "1");
    expect(terms.size).toBe(3);
    expect(["a", "b", "c", "d"].map((k) => terms.has(k))).toEqual([false, true, true, true]);
    // Rows read under an older epoch are not remembered under a newer one.
    terms.reset("2");
    terms.remember(["e"], "1");
    expect(terms.size).toBe(0);
  });
});
