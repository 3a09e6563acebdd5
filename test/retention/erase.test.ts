import { createHash } from "node:crypto";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { rowsOf } from "@/db/client";
import { ForbiddenError, type Actor } from "@/lib/roles";
import { ConflictError, ValidationError } from "@/lib/errors";
import { exportEvent, exportJson, getEventDetail } from "@/lib/console/event-detail";
import { listEvents } from "@/lib/console/list-events";
import { eraseSubject, eraseSubjectAs, previewErasure } from "@/lib/retention/erase";
import { stripeInvoicePaidEvent, stripeSubscriptionEvent } from "@/test/fixtures/stripe";
import { setupTestDb } from "../db";
import { depsFor, post } from "../receiver/harness";
import { signStripe, TEST_SECRETS } from "../sign";
import { testSources } from "../sources";
import { drain, testSettings } from "../worker/helpers";
import { seedEvents } from "@/test/seed-events";

const { db } = setupTestDb();
const admin: Actor = { id: "a1", email: "admin@example.com", role: "admin" };
const ops: Actor = { id: "o1", email: "ops@example.com", role: "ops" };
const support: Actor = { id: "s1", email: "support@example.com", role: "support" };
const sources = testSources();
const sourceOf = (slug: string) => Promise.resolve(sources.find(slug));

const CUSTOMER = "cus_EraseMe0001";
const EMAIL = "Jenny.Erased@Example.com";

async function deliver(event: object) {
  const body = JSON.stringify(event);
  const res = await post(depsFor(db), "stripe", signStripe(body, TEST_SECRETS.stripe));
  return { body, res };
}

/** Three events of the customer (two subscription updates that move it, one paid invoice with the email) and another's. */
async function history() {
  const sub = "sub_1EraseSub0001";
  const a = await deliver(stripeSubscriptionEvent({ eventId: "evt_e1", subscriptionId: sub, customerId: CUSTOMER }));
  const b = await deliver(
    stripeSubscriptionEvent({ eventId: "evt_e2", subscriptionId: sub, customerId: CUSTOMER, created: 1712917200 }),
  );
  const c = await deliver(
    stripeInvoicePaidEvent({
      eventId: "evt_e3",
      customerId: CUSTOMER,
      customerEmail: EMAIL,
      invoiceId: "in_1Erase0001",
    }),
  );
  await deliver(
    stripeSubscriptionEvent({ eventId: "evt_other", subscriptionId: "sub_1Other0001", customerId: "cus_Other0001" }),
  );
  await drain(db, testSettings());
  return { a, b, c };
}

const visible = async (eventId: string) => {
  const key = { source: "stripe", eventId };
  const detail = await getEventDetail(db, support, key, sourceOf);
  const exported = exportJson(await exportEvent(db, support, key, sourceOf));
  return `${JSON.stringify(detail)}\n${exported}`;
};
const search = async (q: string) =>
  (await listEvents(db, support, { filter: { q } })).rows.map((r) => r.eventId).sort();

describe("erasure", () => {
  it("[erasure] preview counts the events that mention a subject; only admins may preview or erase", async () => {
    await history();
    expect(await previewErasure(db, admin, { subject: CUSTOMER })).toMatchObject({
      events: 3,
      pending: 0,
      transitions: 3,
      indexed: 3,
    });
    expect(await previewErasure(db, admin, { subject: EMAIL })).toMatchObject({
      events: 1,
      pending: 0,
      transitions: 1,
    });
    await expect(previewErasure(db, ops, { subject: CUSTOMER })).rejects.toThrow(ForbiddenError);
    await expect(eraseSubject({ db, actor: ops, input: { subject: CUSTOMER } })).rejects.toThrow(ForbiddenError);
    const [refused] = rowsOf<{ result: string; actor_email: string }>(
      await db.execute(sql`select result, actor_email from audit_log where action = 'subjects.erase'`),
    );
    expect(refused).toEqual({ result: "refused", actor_email: ops.email });
  });

  it("[erasure] nothing of an erased customer id remains searchable, in the event detail or in the export", async () => {
    const { a } = await history();
    expect(await search(CUSTOMER)).toEqual(["evt_e1", "evt_e2", "evt_e3"]);
    const before = rowsOf<{ event_id: string; body_sha256: string }>(
      await db.execute(sql`select event_id, body_sha256 from webhook_event order by event_id`),
    );
    expect(await eraseSubject({ db, actor: admin, input: { subject: CUSTOMER, expectedEvents: 3 } })).toMatchObject({
      done: true,
      events: 3,
      pending: 0,
      transitions: 3,
      remaining: [],
    });
    expect(await search(CUSTOMER)).toEqual([]);
    // The ids found beside it go too (the payload they came from is gone): the email no longer finds evt_e3.
    expect(await search(EMAIL)).toEqual([]);
    for (const id of ["evt_e1", "evt_e2", "evt_e3"]) {
      const seen = await visible(id);
      expect(seen).not.toContain(CUSTOMER);
      expect(seen).not.toMatch(/jenny/i);
      expect(seen).toContain("data subject erasure");
    }
    expect(await visible("evt_other")).toContain("cus_Other0001");
    // The proof that a signed delivery existed stays: the body's hash, unchanged.
    const after = rowsOf<{ event_id: string; body_sha256: string }>(
      await db.execute(sql`select event_id, body_sha256 from webhook_event order by event_id`),
    );
    expect(after).toEqual(before);
    expect(after.find((r) => r.event_id === "evt_e1")?.body_sha256).toBe(
      createHash("sha256").update(a.body).digest("hex"),
    );
    const changes = rowsOf<{ changes: Record<string, { from: unknown; to: unknown }> }>(
      await db.execute(sql`select changes from entity_transition where event_id in ('evt_e1', 'evt_e2', 'evt_e3')`),
    );
    for (const c of changes)
      for (const v of Object.values(c.changes)) expect(v).toEqual({ from: "[erased]", to: "[erased]" });
  });

  it("[erasure] an email is matched whatever its case, and a retry of an erased event answers 200 duplicate and does no work", async () => {
    const { c } = await history();
    const counts = await eraseSubject({ db, actor: admin, input: { subject: "JENNY.erased@example.COM" } });
    expect(counts.events).toBe(1);
    expect(await search(EMAIL)).toEqual([]);
    expect(await visible("evt_e3")).not.toMatch(/jenny/i);
    const retry = await post(depsFor(db), "stripe", signStripe(c.body, TEST_SECRETS.stripe));
    expect(retry).toMatchObject({ status: 200, body: { received: true, duplicate: true } });
    expect(await drain(db, testSettings())).toEqual([]);
    expect(await visible("evt_e3")).not.toMatch(/jenny/i);
  });

  it("[erasure] the erasure is audited with who, when and how many events, never naming the subject", async () => {
    await history();
    await eraseSubject({ db, actor: admin, input: { subject: CUSTOMER, reference: "DSR-42" } });
    await eraseSubjectAs({ db, who: "cli:ops-person", input: { subject: "cus_Other0001" } });
    const rows = rowsOf<{
      actor_email: string;
      target: string;
      detail: Record<string, unknown>;
      result: string;
      at: Date;
    }>(
      await db.execute(
        sql`select actor_email, target, detail, result, at from audit_log where action = 'subjects.erase' order by id`,
      ),
    );
    // history() stores four events: each erasure reads all of them.
    const scan = { scanned: 4, scanMs: expect.any(Number) as unknown };
    expect(rows.map((r) => [r.actor_email, r.target, r.result, r.detail])).toEqual([
      [
        admin.email,
        "subject:DSR-42",
        "ok",
        { reference: "DSR-42", events: 3, pending: 0, transitions: 3, indexed: 3, ...scan },
      ],
      ["cli:ops-person", "subject", "ok", { events: 1, pending: 0, transitions: 1, indexed: 1, ...scan }],
    ]);
    expect(JSON.stringify(rows)).not.toMatch(/cus_/);
    expect(JSON.stringify(rows)).not.toMatch(/jenny/i);
  });

  it("[erasure] a count that changed since the preview, or an id on too many events, refuses and changes nothing", async () => {
    await history();
    await expect(eraseSubject({ db, actor: admin, input: { subject: CUSTOMER, expectedEvents: 2 } })).rejects.toThrow(
      ConflictError,
    );
    expect(await search(CUSTOMER)).toHaveLength(3);
    const [error] = rowsOf<{ result: string }>(
      await db.execute(sql`select result from audit_log where action = 'subjects.erase'`),
    );
    expect(error?.result).toBe("error");
    await expect(eraseSubject({ db, actor: admin, input: { subject: " " } })).rejects.toThrow();
    await seedEvents(
      db,
      "source, event_id, event_type, payload, raw_body, headers, subject_ids",
      sql`select 'stripe', 'evt_bulk_' || g, 'invoice.paid', '{}', '{}', '{}', '{price_Shared0001}' from generate_series(1, 10001) g`,
    );
    await expect(eraseSubject({ db, actor: admin, input: { subject: "price_Shared0001" } })).rejects.toThrow(
      ValidationError,
    );
  });

  it("[erasure] events not processed yet are erased and end dead, so no worker applies the redacted payload", async () => {
    await deliver(
      stripeSubscriptionEvent({ eventId: "evt_p1", subscriptionId: "sub_1Pending0001", customerId: CUSTOMER }),
    );
    const counts = await eraseSubject({ db, actor: admin, input: { subject: CUSTOMER } });
    expect(counts).toMatchObject({ done: true, events: 1, pending: 1, transitions: 0 });
    expect(await drain(db, testSettings())).toEqual([]);
    const [row] = rowsOf<{ status: string; last_error: string }>(
      await db.execute(sql`select status, last_error from webhook_event where event_id = 'evt_p1'`),
    );
    expect(row).toMatchObject({ status: "dead", last_error: expect.stringMatching(/erased/) as unknown });
  });
});
