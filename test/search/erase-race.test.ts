import { sql } from "drizzle-orm";
import postgres from "postgres";
import { afterEach, describe, expect, it } from "vitest";
import type { Actor } from "@/lib/roles";
import { handlerLookup, type HandlerLookup } from "@/lib/handlers/registry";
import { defineDeltaHandler } from "@/lib/handlers/types";
import { leaseDue } from "@/lib/ledger/lease";
import { processLeased } from "@/lib/ledger/process";
import { backfillSubjectTerms } from "@/lib/ledger/subject-terms";
import { eraseSubject } from "@/lib/retention/erase";
import { stripeInvoicePaidEvent } from "@/test/fixtures/stripe";
import { setupTestDb, testDatabaseUrl } from "../db";
import { claim, query, testSettings, waitFor } from "../worker/helpers";

const { db } = setupTestDb();
const admin: Actor = { id: "a1", email: "admin@example.com", role: "admin" };
const EMAIL = "race2@example.com";
const CUSTOMER = "cus_Race00000002";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** The customer's paid invoice, claimed (the claim writes no directory row). */
async function claimInvoice(eventId = "evt_race2") {
  const event = stripeInvoicePaidEvent({ eventId, customerId: CUSTOMER, customerEmail: EMAIL });
  expect(await claim(db, "stripe", event)).toBe(true);
}

/** Every directory row that would find the erased subject. */
const termsLeft = () =>
  query<{ term: string; subject: string }>(
    db,
    sql`select term, subject from subject_term
        where subject in (${EMAIL}, ${CUSTOMER}) or term like 'race2%' or term like 'cus_race%'
        order by term`,
  );

/**
 * A second connection that inserts the email's directory row and does not commit: a directory insert of the same
 * row waits on it, right where it stands (after a failure's update, inside a settle), until `release()` rolls it back.
 */
async function termBarrier() {
  const client = postgres(testDatabaseUrl(), { max: 1, onnotice: () => {} });
  const conn = await client.reserve();
  await conn`begin`;
  await conn`insert into subject_term (term, subject, field, value) values (${EMAIL}, ${EMAIL}, 'email', ${EMAIL})`;
  let open = true;
  const release = async () => {
    if (!open) return;
    open = false;
    await conn`rollback`;
    conn.release();
    await client.end();
  };
  closers.push(release);
  return { release };
}

/** Backends of this database waiting on a lock (a row or a transaction another one holds). */
async function lockWaits(): Promise<number> {
  const [row] = await query<{ n: number }>(
    db,
    sql`select count(*)::int as n from pg_stat_activity
        where datname = current_database() and wait_event_type = 'Lock'`,
  );
  return row?.n ?? 0;
}

/** The erasure, started; `done()` says whether it has returned (or thrown). */
function startErasure() {
  let finished = false;
  const erasure = eraseSubject({ db, actor: admin, input: { subject: EMAIL } });
  erasure.then(
    () => (finished = true),
    () => (finished = true),
  );
  return { erasure, done: () => finished };
}

/** invoice.paid handlers that throw (when `fail`) or settle, counting the events they were called for. */
function handlers(opts: { fail: boolean }) {
  let called = 0;
  const lookup: HandlerLookup = handlerLookup([
    defineDeltaHandler<string>({
      source: "stripe",
      types: ["invoice.paid"],
      read: ({ eventId }) => ({ entity: { type: "customer", id: eventId }, input: eventId }),
      async apply() {
        called++;
        if (opts.fail) throw new Error("the downstream ledger is down");
        return {};
      },
    }),
  ]);
  return { lookup, called: () => called };
}

async function processAll(lookup: HandlerLookup) {
  const batch = await leaseDue(db, { workerId: "w", leaseMs: 30_000, limit: 10 });
  expect(batch).toHaveLength(1);
  return processLeased(db, batch, { policy: testSettings().policy, handlers: lookup });
}

async function statusOf(eventId = "evt_race2") {
  const [row] = await query<{ status: string }>(db, sql`select status from webhook_event where event_id = ${eventId}`);
  return row?.status;
}

/**
 * An attempt held at its directory insert, an erasure started meanwhile: the erasure either finishes (the attempt's
 * event row was free) or waits on the attempt's row lock; then the attempt goes on. Returns the attempt's outcome.
 */
async function eraseWhileTermsWait(lookup: HandlerLookup) {
  const barrier = await termBarrier();
  const attempt = processAll(lookup);
  await waitFor(async () => (await lockWaits()) >= 1);
  const { erasure, done } = startErasure();
  await waitFor(async () => done() || (await lockWaits()) >= 2);
  await barrier.release();
  const [result] = await attempt;
  expect(await erasure).toMatchObject({ events: 1 });
  return result;
}

describe("an erased subject stays out of the search directory, whatever the interleaving", () => {
  it("[search] an erasure while a failing attempt writes its terms leaves no term of the subject", async () => {
    await claimInvoice();
    const result = await eraseWhileTermsWait(handlers({ fail: true }).lookup);
    expect(result?.outcome).toBe("failed");
    expect(await termsLeft()).toEqual([]);
  });

  it("[search] an erasure that waits on a settling attempt's row lock still deletes the terms that settle wrote", async () => {
    await claimInvoice();
    const result = await eraseWhileTermsWait(handlers({ fail: false }).lookup);
    expect(result?.outcome).toBe("settled");
    expect(await termsLeft()).toEqual([]);
  });

  it("[search] an erasure that commits while an attempt holds its lease leaves it nothing to index, failing or settling", async () => {
    // The attempt's fence locks its row before the handler runs, so an erasure either waits for the attempt (the
    // tests above) or commits between the lease and the fence (this one).
    for (const fail of [true, false]) {
      const eventId = fail ? "evt_race2_fail" : "evt_race2_settle";
      await claimInvoice(eventId);
      const h = handlers({ fail });
      const batch = await leaseDue(db, { workerId: "w", leaseMs: 30_000, limit: 10 });
      expect(batch).toHaveLength(1);
      const { erasure } = startErasure();
      expect(await erasure).toMatchObject({ events: 1, pending: 1 });
      const [result] = await processLeased(db, batch, { policy: testSettings().policy, handlers: h.lookup });
      expect(h.called(), eventId).toBe(0);
      expect(result?.outcome, eventId).toBe("lease-lost");
      expect(await statusOf(eventId)).toBe("dead");
      expect(await termsLeft()).toEqual([]);
    }
  });

  it("[search] an erasure while the directory is being rebuilt leaves no term of the subject", async () => {
    await claimInvoice();
    const barrier = await termBarrier();
    const rebuild = backfillSubjectTerms(db);
    await waitFor(async () => (await lockWaits()) >= 1);
    const { erasure, done } = startErasure();
    await waitFor(async () => done() || (await lockWaits()) >= 2);
    await barrier.release();
    expect(await rebuild).toMatchObject({ events: 1 });
    await erasure;
    expect(await termsLeft()).toEqual([]);
  });

  it("[search] an attempt that ends after an erasure indexes a later event of the same customer again", async () => {
    await claimInvoice("evt_race2_before");
    await processAll(handlerLookup());
    await eraseSubject({ db, actor: admin, input: { subject: EMAIL } });
    expect(await termsLeft()).toEqual([]);
    await claimInvoice("evt_race2_after");
    await processAll(handlerLookup());
    expect((await termsLeft()).map((t) => t.subject)).toContain(EMAIL);
  });
});
