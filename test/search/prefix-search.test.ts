import { sql } from "drizzle-orm";
import { beforeEach, describe, expect, it } from "vitest";
import type { Actor } from "@/lib/roles";
import { handlerLookup } from "@/lib/handlers/registry";
import { listEvents, type EventPage } from "@/lib/console/list-events";
import { backfillSubjectTerms, extractSubjectTerms, PREFIX_TERM_LIMIT } from "@/lib/ledger/subject-terms";
import { eraseSubject } from "@/lib/retention/erase";
import { githubIssuesOpened } from "@/test/fixtures/github";
import { shopifyOrder } from "@/test/fixtures/shopify";
import { stripeInvoicePaidEvent, stripeSubscriptionEvent } from "@/test/fixtures/stripe";
import { setupTestDb } from "../db";
import { claim, drain, query, testSettings } from "../worker/helpers";

const { db } = setupTestDb();
const support: Actor = { id: "s1", email: "support@example.com", role: "support" };
const admin: Actor = { id: "a1", email: "admin@example.com", role: "admin" };

// test/db.ts empties the ledger's tables between tests; the directory is emptied here.
beforeEach(async () => {
  await db.execute(sql`truncate subject_term`);
});

const search = (q: string): Promise<EventPage> => listEvents(db, support, { filter: { q } });
const ids = async (q: string) => (await search(q)).rows.map((r) => r.eventId).sort();

function invoice(eventId: string, customerId: string, email: string, name: string) {
  const event = stripeInvoicePaidEvent({ eventId, customerId, customerEmail: email, invoiceId: `in_1${eventId}X` });
  return { ...event, data: { object: { ...event.data.object, customer_name: name } } };
}

const subscription = (eventId: string, customerId: string) =>
  stripeSubscriptionEvent({ eventId, customerId, subscriptionId: `sub_1${customerId.slice(4)}` });

describe("prefix search", () => {
  it("[search] an id prefix finds the events of every id that starts with it, case-insensitively, and says a customer id matched", async () => {
    await claim(db, "stripe", subscription("evt_s21", "cus_Demo0000021"));
    await claim(db, "stripe", subscription("evt_s22", "cus_Demo0000022"));
    await claim(db, "stripe", subscription("evt_s31", "cus_Demo0000031"));
    await drain(db, testSettings());

    expect(await ids("cus_Demo000002")).toEqual(["evt_s21", "evt_s22"]);
    expect(await ids("CUS_demo00000")).toEqual(["evt_s21", "evt_s22", "evt_s31"]);
    const page = await search("cus_Demo000002");
    expect(page.search).toEqual({ q: "cus_Demo000002", mode: "prefix", terms: 2, more: false });
    expect(page.rows.find((r) => r.eventId === "evt_s21")?.match).toEqual({
      field: "customer id",
      value: "cus_Demo0000021",
    });
    // An exact event id says so. Event ids are found whole (the primary key), not by prefix: nobody types half of one.
    expect((await search("evt_s31")).rows.map((r) => r.match)).toEqual([{ field: "event id", value: "evt_s31" }]);
    expect(await ids("evt_s2")).toEqual([]);
    // A subscription id is a prefix too.
    expect(await ids("SUB_1demo000002")).toEqual(["evt_s21", "evt_s22"]);
  });

  it("[search] an email prefix finds its events whatever the case, and the row says the email matched", async () => {
    await claim(db, "stripe", invoice("evt_i1", "cus_Mail0000001", "Jenny.Rosen@Example.com", "Jenny Rosen"));
    await claim(db, "stripe", invoice("evt_i2", "cus_Mail0000002", "jeremy@example.com", "Jeremy Irons"));
    await drain(db, testSettings());

    expect(await ids("JENNY.ROS")).toEqual(["evt_i1"]);
    expect(await ids("je")).toEqual([]);
    const [row] = (await search("jenny.r")).rows;
    expect(row?.match).toEqual({ field: "email", value: "jenny.rosen@example.com" });
  });

  it("[search] a name prefix finds every event of the customer it belongs to, and the row names the match and the customer", async () => {
    await claim(db, "stripe", invoice("evt_n1", "cus_Name0000001", "jr@example.com", "Jenny Rosen"));
    // The same customer's subscription event carries no name: the name finds it through the customer id.
    await claim(db, "stripe", subscription("evt_n2", "cus_Name0000001"));
    await claim(db, "stripe", invoice("evt_n3", "cus_Name0000002", "other@example.com", "Jeremy Irons"));
    await claim(db, "shopify", shopifyOrder({ id: 820982911946154, customerId: 7013312364735 }), {
      "x-shopify-topic": "orders/create",
      "x-shopify-event-id": "shop-ev-1",
    });
    await claim(db, "github", githubIssuesOpened(), { "x-github-delivery": "gh-1", "x-github-event": "issues" });
    await drain(db, testSettings());

    expect(await ids("jenny ro")).toEqual(["evt_n1", "evt_n2"]);
    // A later word of the name is a prefix too.
    expect(await ids("ROSEN")).toEqual(["evt_n1", "evt_n2"]);
    const row = (await search("jenny ro")).rows.find((r) => r.eventId === "evt_n2");
    expect(row?.match).toEqual({ field: "name", value: "Jenny Rosen", subject: "cus_Name0000001" });

    // Shopify's first_name + last_name, and a GitHub login.
    const shop = (await search("jon sn")).rows;
    expect(shop.map((r) => [r.source, r.match])).toEqual([
      ["shopify", { field: "name", value: "Jon Snow", subject: "7013312364735" }],
    ]);
    const gh = (await search("codertoc")).rows;
    expect(gh.map((r) => [r.eventId, r.match])).toEqual([["gh-1", { field: "login", value: "Codertocat" }]]);
  });

  it("[search] % and _ in a search are plain characters, not LIKE wildcards", async () => {
    await claim(db, "stripe", invoice("evt_w1", "cus_Wild0000001", "ab_c@example.com", "Ann Bee"));
    await claim(db, "stripe", invoice("evt_w2", "cus_Wild0000002", "abxc@example.com", "Ann Bee"));
    await claim(db, "stripe", invoice("evt_w3", "cus_Wild0000003", "ab%d@example.com", "Ann Bee"));
    await drain(db, testSettings());

    expect(await ids("ab_")).toEqual(["evt_w1"]);
    expect(await ids("ab%")).toEqual(["evt_w3"]);
    expect(await ids("cus%")).toEqual([]);
    expect(await ids("cus_Wild%")).toEqual([]);
  });

  it("[search] one or two characters are no prefix: the page says so, and an id that is exactly them is still found", async () => {
    await claim(db, "stripe", subscription("evt_short", "cus_Short000001"));
    await claim(db, "github", githubIssuesOpened({ issueId: 42 }), {
      "x-github-delivery": "gh-42",
      "x-github-event": "issues",
    });
    await drain(db, testSettings());

    const cu = await search("cu");
    expect(cu.rows).toEqual([]);
    expect(cu.search?.mode).toBe("exact");
    expect(cu.search?.note).toMatch(/shorter than 3 characters/);
    const exact = await search("42");
    expect(exact.rows.map((r) => [r.eventId, r.match])).toEqual([["gh-42", { field: "id", value: "42" }]]);
  });

  it("[search] a prefix that starts more than fifty terms follows the first fifty and says it was narrowed", async () => {
    for (let i = 0; i < PREFIX_TERM_LIMIT + 5; i++)
      await claim(db, "stripe", subscription(`evt_many${i}`, `cus_Many${String(i).padStart(7, "0")}`));
    await drain(db, testSettings());

    const page = await search("cus_Many");
    expect(page.search).toMatchObject({ mode: "prefix", terms: PREFIX_TERM_LIMIT, more: true });
    expect(page.search?.note).toMatch(/more than 50 .* start with "cus_Many"/);
    expect(page.rows).toHaveLength(PREFIX_TERM_LIMIT);
  });

  it("[search] terms are written when an attempt ends, not at the claim: a claimed event is found by its exact id only", async () => {
    await claim(db, "stripe", subscription("evt_wait", "cus_Wait0000001"));
    expect(await ids("cus_Wait0000001")).toEqual(["evt_wait"]);
    expect(await ids("cus_Wait")).toEqual([]);
    expect(await query(db, sql`select 1 from subject_term`)).toEqual([]);
    await drain(db, testSettings());
    expect(await ids("cus_Wait")).toEqual(["evt_wait"]);
  });

  it("[search] a failed attempt writes the event's terms too: a dead event is found by prefix", async () => {
    // A source this worker does not know: every attempt fails, until dead.
    await claim(db, "stripe", subscription("evt_dead", "cus_Dead0000001"));
    await drain(db, testSettings({ handlers: handlerLookup(undefined, () => undefined) }));
    const [row] = await query<{ status: string }>(db, sql`select status from webhook_event`);
    expect(row?.status).toBe("dead");
    expect(await ids("cus_dead")).toEqual(["evt_dead"]);
  });

  it("[search] the backfill gives events that ended before the directory existed their terms, page by page", async () => {
    for (const n of [1, 2, 3]) await claim(db, "stripe", subscription(`evt_old${n}`, `cus_Old000000${n}`));
    expect(await ids("cus_Old")).toEqual([]);
    const pages: number[] = [];
    let next: Awaited<ReturnType<typeof backfillSubjectTerms>>["next"];
    do {
      const page = await backfillSubjectTerms(db, { after: next, limit: 2 });
      pages.push(page.events);
      next = page.next;
    } while (next);
    expect(pages).toEqual([2, 1]);
    expect(await ids("cus_Old")).toEqual(["evt_old1", "evt_old2", "evt_old3"]);
  });

  it("[search] erasure removes every term of the subject's events: no id, email or name of it stays searchable", async () => {
    await claim(db, "stripe", invoice("evt_x1", "cus_Erase000001", "erased.person@example.com", "Erin Rased"));
    await claim(db, "stripe", subscription("evt_x2", "cus_Erase000001"));
    await claim(db, "stripe", invoice("evt_k1", "cus_Keep0000001", "kept@example.com", "Kim Kept"));
    await drain(db, testSettings());
    expect(await ids("erin")).toEqual(["evt_x1", "evt_x2"]);

    await eraseSubject({ db, actor: admin, input: { subject: "cus_Erase000001" } });
    const left = await query<{ term: string }>(
      db,
      sql`select term from subject_term where term like '%eras%' or term like 'erin%' or subject = 'cus_Erase000001'`,
    );
    expect(left).toEqual([]);
    for (const q of ["erin", "rased", "cus_Erase", "erased.pers", "in_1evt_x1"]) expect(await ids(q)).toEqual([]);
    expect(await ids("kim k")).toEqual(["evt_k1"]);
  });
});

describe("subject terms found in payloads", () => {
  it("[search] names come from Stripe customer_name and customer objects, Shopify customers and Paddle customers, logins from GitHub", () => {
    const names = (payload: unknown) =>
      extractSubjectTerms(payload)
        .filter((t) => t.field !== "customer id")
        .map((t) => `${t.text} → ${t.subject} (${t.field})`);
    expect(names(invoice("evt_1", "cus_A000001", "a@example.com", "  Jenny   Rosen "))).toEqual([
      "Jenny Rosen → cus_A000001 (name)",
      "Rosen → cus_A000001 (name)",
    ]);
    expect(
      names({ type: "customer.created", data: { object: { id: "cus_B000001", object: "customer", name: "Bo Li" } } }),
    ).toEqual(["Bo Li → cus_B000001 (name)", "Li → cus_B000001 (name)"]);
    expect(
      names({ event_type: "customer.created", data: { id: "ctm_01hv6y1", name: "Ada", email: "a@b.co" } }),
    ).toEqual(["Ada → ctm_01hv6y1 (name)"]);
    // Shopify ids past 2^53: the GraphQL id keeps them exact.
    expect(
      names({
        customer: {
          id: 115310627314723950,
          admin_graphql_api_id: "gid://shopify/Customer/115310627314723954",
          first_name: "John",
          last_name: "Smith",
        },
      }),
    ).toEqual(["John Smith → 115310627314723954 (name)", "Smith → 115310627314723954 (name)"]);
    expect(names(githubIssuesOpened())).toEqual(["Codertocat → Codertocat (login)"]);
    // An order's own name ("#1042") or a product's is no person's.
    expect(names({ name: "#1042", line_items: [{ name: "IPod Nano" }] })).toEqual([]);
  });
});
