import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { rowsOf } from "@/db/client";
import type { Actor } from "@/lib/roles";
import { requeueMatching } from "@/lib/console/requeue-matching";
import { eraseSubject, previewErasure } from "@/lib/retention/erase";
import { githubPush } from "@/test/fixtures/github-push";
import { runCli } from "../cli";
import { setupTestDb } from "../db";
import { depsFor, post } from "../receiver/harness";
import { signGithub, signStripe, TEST_SECRETS } from "../sign";
import { drain, testSettings } from "../worker/helpers";

const { db } = setupTestDb();
const admin: Actor = { id: "a1", email: "admin@example.com", role: "admin" };
const ops: Actor = { id: "o1", email: "ops@example.com", role: "ops" };

const LATE = "late.author@example.com";
const OCONNOR = "o'connor@example.com";

/** A push of 70 commits by 70 authors, the last one `lastAuthor`, through the real receiver. */
async function deliverPush(lastAuthor: string, delivery = "a1b2c3d4-0000-4000-8000-000000000070") {
  const authors = Array.from({ length: 70 }, (_, i) =>
    i === 69
      ? { name: "Late Author", email: lastAuthor }
      : { name: `Author ${i + 1}`, email: `author${i + 1}@example.com`, username: `author-${i + 1}` },
  );
  const body = JSON.stringify(githubPush({ authors }));
  const res = await post(
    depsFor(db),
    "github",
    await signGithub(body, TEST_SECRETS.github, { delivery, event: "push" }),
  );
  expect(res).toMatchObject({ status: 200, body: { duplicate: false } });
  return body;
}

/** A Stripe customer.created with this email, through the real receiver; `text` may re-encode the JSON. */
async function deliverCustomer(email: string, opts: { eventId?: string; text?: (json: string) => string } = {}) {
  const json = JSON.stringify({
    id: opts.eventId ?? "evt_1CustomerOConnor01",
    object: "event",
    api_version: "2024-04-10",
    created: 1712917300,
    data: {
      object: {
        id: "cus_OConnorCust0001",
        object: "customer",
        created: 1712917300,
        email,
        name: "Siobhan O'Connor",
        description: null,
        livemode: false,
        metadata: {},
      },
    },
    livemode: false,
    pending_webhooks: 1,
    request: { id: "req_OConnor0001", idempotency_key: null },
    type: "customer.created",
  });
  const body = opts.text ? opts.text(json) : json;
  const res = await post(depsFor(db), "stripe", signStripe(body, TEST_SECRETS.stripe));
  expect(res).toMatchObject({ status: 200, body: { duplicate: false } });
  return body;
}

/**
 * Every place the ledger keeps a copy of what arrived, read with a plain case-insensitive substring test of the
 * value and its JSON-escaped spellings: independent of how erasure matches.
 */
async function storedCopies(value: string): Promise<Record<string, number>> {
  const forms = [
    value,
    value.replaceAll("'", "\\u0027"),
    value.replaceAll("/", "\\/"),
    JSON.stringify(value).slice(1, -1),
  ].map((f) => f.toLowerCase());
  const has = (column: string) =>
    sql.join(
      forms.map((f) => sql`strpos(lower(coalesce(${sql.raw(column)}, '')), ${f}) > 0`),
      sql` or `,
    );
  const [row] = rowsOf<Record<string, number>>(
    await db.execute(sql`
      select (select count(*)::int from webhook_event_body where ${has("raw_body")}) as raw_body,
             (select count(*)::int from webhook_event_body where ${has("headers::text")}) as headers,
             (select count(*)::int from webhook_event_body where ${has("payload::text")}) as payload,
             (select count(*)::int from webhook_event_body where ${has("intake_note")} or ${value} = any(subject_ids)) as ids,
             (select count(*)::int from webhook_event_state where ${has("last_error")} or ${has("resolution_note")}) as state,
             (select count(*)::int from webhook_attempt where ${has("error")}) as attempts,
             (select count(*)::int from entity_transition where ${has("changes::text")} or ${has("note")}) as timeline,
             (select count(*)::int from subject_term where ${has("term")} or ${has("subject")} or ${has("value")}) as terms`),
  );
  return Object.fromEntries(Object.entries(row!).filter(([, n]) => n > 0));
}

const erasureAudit = async () =>
  rowsOf<{ result: string; detail: Record<string, unknown>; error: string | null }>(
    await db.execute(sql`select result, detail, error from audit_log where action = 'subjects.erase' order by id`),
  );

describe("erasure finds every stored mention", () => {
  it("[erasure] a push's 70th commit author and an apostrophe email are previewed, erased, and no stored copy holds either", async () => {
    await deliverPush(LATE);
    await deliverCustomer(OCONNOR);
    await drain(db, testSettings());
    expect(await storedCopies(LATE)).toMatchObject({ raw_body: 1 });
    expect(await storedCopies(OCONNOR)).toMatchObject({ raw_body: 1 });

    const late = await previewErasure(db, admin, { subject: LATE });
    expect(late).toMatchObject({ events: 1, pending: 0 });
    // Past the extractor's 64 ids: only reading the raw bodies finds it, and the preview says so.
    expect(late.indexed).toBe(0);
    expect(late.scan.read).toBe(2);
    expect(late.scan.ms).toBeGreaterThanOrEqual(0);
    expect(await previewErasure(db, admin, { subject: OCONNOR })).toMatchObject({ events: 1, indexed: 1 });

    const erasedLate = await eraseSubject({ db, actor: admin, input: { subject: LATE, expectedEvents: 1 } });
    expect(erasedLate).toMatchObject({ done: true, events: 1, indexed: 0, remaining: [] });
    expect(erasedLate.scan.read).toBe(2);
    const erasedOConnor = await eraseSubject({ db, actor: admin, input: { subject: OCONNOR, expectedEvents: 1 } });
    expect(erasedOConnor).toMatchObject({ done: true, events: 1, remaining: [] });

    expect(await storedCopies(LATE)).toEqual({});
    expect(await storedCopies(OCONNOR)).toEqual({});
    // Other authors of the push are gone with it (its body is the marker); the audit says how each was found.
    expect(await storedCopies("author1@example.com")).toEqual({});
    const audit = await erasureAudit();
    expect(audit.map((a) => a.result)).toEqual(["ok", "ok"]);
    expect(audit[0]!.detail).toMatchObject({
      events: 1,
      indexed: 0,
      scanned: 2,
      scanMs: expect.any(Number) as unknown,
    });
    expect(JSON.stringify(audit)).not.toMatch(/late\.author|connor/i);
  });

  it("[erasure] an email the body spells with JSON escapes (\\u0027, \\/) is found and erased in every spelling", async () => {
    const slash = "jo/ann@example.com";
    await deliverCustomer(OCONNOR, {
      eventId: "evt_1EscapedApos0001",
      text: (json) => json.replaceAll("'", "\\u0027"),
    });
    await deliverCustomer(slash, { eventId: "evt_1EscapedSlash001", text: (json) => json.replaceAll("/", "\\/") });
    await drain(db, testSettings());
    expect(await storedCopies(OCONNOR)).toMatchObject({ raw_body: 1 });

    expect(await previewErasure(db, admin, { subject: OCONNOR })).toMatchObject({ events: 1 });
    expect(await previewErasure(db, admin, { subject: slash })).toMatchObject({ events: 1 });
    expect(await eraseSubject({ db, actor: admin, input: { subject: OCONNOR } })).toMatchObject({ done: true });
    expect(await eraseSubject({ db, actor: admin, input: { subject: slash } })).toMatchObject({ done: true });
    expect(await storedCopies(OCONNOR)).toEqual({});
    expect(await storedCopies(slash)).toEqual({});
  });

  it("[erasure] an event the search index does not name (claimed before the email was extracted) is found by reading raw bodies", async () => {
    await deliverCustomer(OCONNOR);
    await drain(db, testSettings());
    // As a row claimed by the extractor that refused apostrophes holds it: without the email.
    await db.execute(sql`update webhook_event_body set subject_ids = array_remove(subject_ids, ${OCONNOR})`);
    const preview = await previewErasure(db, admin, { subject: OCONNOR });
    expect(preview).toMatchObject({ events: 1, indexed: 0 });
    expect(preview.scan.read).toBe(1);
    expect(await eraseSubject({ db, actor: admin, input: { subject: OCONNOR, expectedEvents: 1 } })).toMatchObject({
      done: true,
      events: 1,
    });
    expect(await storedCopies(OCONNOR)).toEqual({});
  });

  it("[erasure] an address is matched as written, not inside a longer one (xo'connor@…, …@example.com.au) nor with a dot as any character", async () => {
    await deliverCustomer(`x${OCONNOR}`, { eventId: "evt_1LongerLocal0001" });
    await deliverCustomer(`${OCONNOR}.au`, { eventId: "evt_1LongerDomain001" });
    await deliverCustomer("late-author@example.com", { eventId: "evt_1DashNotDot0001" });
    await deliverCustomer("jenny+receipts@example.com", { eventId: "evt_1PlusAddress001" });
    await drain(db, testSettings());
    expect(await previewErasure(db, admin, { subject: OCONNOR })).toMatchObject({ events: 0 });
    expect(await previewErasure(db, admin, { subject: LATE })).toMatchObject({ events: 0 });
    // Not in the search index either way (the index names it), but the read of raw bodies must match the plus too.
    await db.execute(sql`update webhook_event_body set subject_ids = '{}'`);
    expect(await previewErasure(db, admin, { subject: "jenny+receipts@example.com" })).toMatchObject({ events: 1 });
    expect(await eraseSubject({ db, actor: admin, input: { subject: OCONNOR } })).toMatchObject({
      done: true,
      events: 0,
    });
    expect(await storedCopies(`x${OCONNOR}`)).toMatchObject({ raw_body: 1 });
    expect(await storedCopies(`${OCONNOR}.au`)).toMatchObject({ raw_body: 1 });
  });

  it("[erasure] a copy erasure does not remove (an audit row quoting the email) makes it report failure, audited as error, never done", async () => {
    await deliverCustomer(OCONNOR);
    await drain(db, testSettings());
    // Ops asked for a bulk requeue filtered by the email: the audit row keeps the filter, with the email in it.
    await requeueMatching({ db, actor: ops, input: { filter: { q: OCONNOR }, confirmed: 1 } }).catch(() => undefined);
    const quoted = rowsOf<{ n: number }>(
      await db.execute(sql`select count(*)::int as n from audit_log where detail::text ilike ${`%${OCONNOR}%`}`),
    );
    expect(quoted[0]!.n).toBe(1);

    const result = await eraseSubject({ db, actor: admin, input: { subject: OCONNOR, expectedEvents: 1 } });
    expect(result.done).toBe(false);
    expect(result.events).toBe(1);
    expect(result.remaining).toEqual([{ place: "audit_log", rows: 1 }]);
    // What it could erase is erased; what it could not is said, counted and audited as an error.
    expect(await storedCopies(OCONNOR)).toEqual({});
    const [audit] = await erasureAudit();
    expect(audit).toMatchObject({ result: "error", detail: { events: 1, remaining: { audit_log: 1 } } });
    expect(audit!.error).toMatch(/audit_log/);
    expect(JSON.stringify(audit)).not.toMatch(/connor/i);
  });

  it("[erasure] npm run erase exits 1 and names the place when a stored copy still holds the subject", async () => {
    await deliverCustomer(OCONNOR);
    await drain(db, testSettings());
    await requeueMatching({ db, actor: ops, input: { filter: { q: OCONNOR }, confirmed: 1 } }).catch(() => undefined);
    const run = await runCli("erase", ["--subject", OCONNOR]);
    expect(run.code, run.stderr).toBe(1);
    expect(JSON.parse(run.stdout.trim())).toMatchObject({ dryRun: false, done: false, erased: 1 });
    expect(run.stderr).toMatch(/not done: .*audit_log \(1 row\)/);
    expect(await storedCopies(OCONNOR)).toEqual({});
  });
});
