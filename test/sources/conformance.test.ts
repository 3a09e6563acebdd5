import { createHash, createHmac } from "node:crypto";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { rowsOf } from "@/db/client";
import type { Actor } from "@/lib/roles";
import { listEvents } from "@/lib/console/list-events";
import { PROVIDERS } from "@/lib/providers";
import {
  LEMON_SQUEEZY_OPTIONS,
  lemonSqueezySubscriptionUpdated,
  TYPEFORM_OPTIONS,
  typeformFormResponse,
} from "@/lib/samples/generic";
import { SHOPIFY_TEST_ORDER_TEXT } from "@/lib/samples/shopify";
import { STANDARD_LIBRARY_TEST_BODY, standardEventTypedUnderEvent } from "@/lib/samples/standard";
import { stripeThinAccountEvent, stripeThinEvent } from "@/lib/samples/stripe";
import { githubIssuesOpened } from "@/test/fixtures/github";
import { setupTestDb } from "../db";
import { counts, depsFor, post } from "../receiver/harness";
import { signGithub, signStandard, signStripe, TEST_SECRETS, type Delivery } from "../sign";
import { testSource, testSources } from "../sources";
import { drain } from "../worker/helpers";

const { db } = setupTestDb();
const support: Actor = { id: "u1", email: "support@example.com", role: "support" };
const TYPEFORM_SECRET = "typeform-form-secret";
const LEMON_SECRET = "lemon-squeezy-signing-secret";
const options = (o: unknown) => PROVIDERS.generic.parseOptions!(o);
const deps = depsFor(db, {
  sources: testSources({}, [
    testSource("typeform", "generic", [TYPEFORM_SECRET], { options: options(TYPEFORM_OPTIONS) }),
    testSource("lemon", "generic", [LEMON_SECRET], { options: options(LEMON_SQUEEZY_OPTIONS) }),
    testSource("clerk", "standard", [TEST_SECRETS.standard], {
      options: PROVIDERS.standard.parseOptions!({ typePath: "event" }),
    }),
  ]),
});

const row = async (source: string) =>
  rowsOf<{
    event_id: string;
    event_type: string;
    entity_type: string | null;
    entity_id: string | null;
    v: string | null;
    subject_ids: string[];
  }>(
    await db.execute(
      sql`select event_id, event_type, entity_type, entity_id, entity_version::text as v, subject_ids from webhook_event where source = ${source}`,
    ),
  );
const search = async (q: string) =>
  (await listEvents(db, support, { filter: { q } })).rows.map((r) => `${r.source}/${r.eventId}`);

describe("every real sender accepted, through the receiver", () => {
  it("[conformance] Standard Webhooks without a type: the libraries' own test body is stored as type unknown, no version", async () => {
    const res = await post(
      deps,
      "standard",
      signStandard(STANDARD_LIBRARY_TEST_BODY, TEST_SECRETS.standard, { id: "msg_lib_test" }),
    );
    expect(res).toMatchObject({ status: 200, body: { duplicate: false } });
    expect(await row("standard")).toMatchObject([{ event_id: "msg_lib_test", event_type: "unknown", v: null }]);
  });

  it("[conformance] Standard Webhooks with the type under a configured field (`event`)", async () => {
    const body = JSON.stringify(standardEventTypedUnderEvent({ event: "user.created" }));
    expect((await post(deps, "clerk", signStandard(body, TEST_SECRETS.standard, { id: "msg_clerk_1" }))).status).toBe(
      200,
    );
    expect(await row("clerk")).toMatchObject([{ event_id: "msg_clerk_1", event_type: "user.created" }]);
  });

  it("[conformance] Standard Webhooks v1a (ed25519): a whpk_ public key verifies, among several signatures", async () => {
    const pair = {
      whsk: "whsk_6Xb/dCcHpPea21PS1N9VY/NZW723CEc77N4rJCubMbfVKIDij2HKpMKkioLlX0dRqSKJp4AJ6p9lMicMFs6Kvg==",
      whpk: "whpk_1SiA4o9hyqTCpIqC5V9HUakiiaeACeqfZTInDBbOir4=",
    };
    const asym = depsFor(db, { sources: testSources({}, [testSource("svix", "standard", [pair.whpk])]) });
    const body = JSON.stringify({ type: "invoice.paid", timestamp: new Date().toISOString(), data: { id: "inv_v1a" } });
    const now = Math.floor(Date.now() / 1000);
    const headers = PROVIDERS.standard.sign!({
      rawBody: body,
      secret: pair.whsk,
      now,
      eventId: "msg_v1a",
      eventType: "invoice.paid",
    })!;
    expect(headers["webhook-signature"]).toMatch(/^v1a,/);
    const withDecoy = { ...headers, "webhook-signature": `v1,AAAA ${headers["webhook-signature"]}` };
    expect((await post(asym, "svix", { body, headers: withDecoy })).status).toBe(200);
    expect((await post(asym, "svix", { body: body.replace("inv_v1a", "inv_evil"), headers })).status).toBe(401);
    expect(await row("svix")).toMatchObject([{ event_id: "msg_v1a", entity_id: "inv_v1a" }]);
  });

  it("[conformance] Shopify with only the unprefixed headers: verified, keyed by the event id, big ids exact", async () => {
    const body = SHOPIFY_TEST_ORDER_TEXT;
    const sig = createHmac("sha256", TEST_SECRETS.shopify).update(body).digest("base64");
    const headers = {
      "content-type": "application/json",
      "shopify-hmac-sha256": sig,
      "shopify-webhook-id": "b54557e4-bdd9-4b37-8a5f-bf7d70bcd043",
      "shopify-event-id": "98880550-7158-44d4-b7cd-2c97c8a091b5",
      "shopify-topic": "orders/create",
      "shopify-shop-domain": "ledger-test.myshopify.com",
    };
    expect((await post(deps, "shopify", { body, headers })).status).toBe(200);
    // The same event through a second subscription (another webhook id): a duplicate.
    const again = { ...headers, "shopify-webhook-id": "0b8e2f2c-0000-4000-8000-000000000002" };
    expect((await post(deps, "shopify", { body, headers: again })).body).toMatchObject({ duplicate: true });
    const [r] = await row("shopify");
    expect(r).toMatchObject({
      event_id: "98880550-7158-44d4-b7cd-2c97c8a091b5:orders/create",
      entity_id: "820982911946154508",
    });
    // 18-digit ids JSON.parse would round are subjects, exactly as sent.
    expect(r!.subject_ids).toEqual(expect.arrayContaining(["820982911946154508", "115310627314723954"]));
    expect(await search("115310627314723954")).toEqual(["shopify/98880550-7158-44d4-b7cd-2c97c8a091b5:orders/create"]);
  });

  it("[conformance] Stripe thin events are stored, searchable by the related object, and settle as ignored", async () => {
    const thin = JSON.stringify(stripeThinEvent());
    const account = JSON.stringify(stripeThinAccountEvent());
    expect((await post(deps, "stripe", signStripe(thin, TEST_SECRETS.stripe))).status).toBe(200);
    expect((await post(deps, "stripe", signStripe(account, TEST_SECRETS.stripe))).status).toBe(200);
    expect((await row("stripe")).map((r) => [r.event_type, r.entity_type, r.entity_id])).toEqual(
      expect.arrayContaining([
        ["v1.billing.meter.error_report_triggered", "billing.meter", "mtr_test_61RCjiqdTDC91zgip41IqPCzPnxqqSVc"],
        ["v2.core.account[requirements].updated", "v2.core.account", "acct_1QjvSdQ9RKHgCVdK"],
      ]),
    );
    expect(await search("acct_1QjvSdQ9RKHgCVdK")).toEqual([
      "stripe/evt_test_65RGh2aXeZwN5SxmJ7p16RCMoNQdSQkOWvfL6L5uU2K40u",
    ]);
    const processed = await drain(db);
    expect(processed.map((p) => p.outcome).sort()).toEqual(["ignored", "ignored"]);
  });

  it("[conformance] a GitHub repository's full_name is a subject support can search", async () => {
    const body = JSON.stringify(githubIssuesOpened());
    expect((await post(deps, "github", await signGithub(body, TEST_SECRETS.github, { event: "issues" }))).status).toBe(
      200,
    );
    expect(await search("Codertocat/Hello-World")).toHaveLength(1);
  });

  it("[conformance] generic kind, Typeform: base64 `sha256=` signature, id and type from the body", async () => {
    const body = JSON.stringify(typeformFormResponse());
    const sig = `sha256=${createHmac("sha256", TYPEFORM_SECRET).update(body).digest("base64")}`;
    const d: Delivery = { body, headers: { "content-type": "application/json", "typeform-signature": sig } };
    expect((await post(deps, "typeform", d)).status).toBe(200);
    expect((await post(deps, "typeform", d)).body).toMatchObject({ duplicate: true });
    const bad = {
      ...d,
      headers: {
        ...d.headers,
        "typeform-signature": `sha256=${createHmac("sha256", "nope").update(body).digest("base64")}`,
      },
    };
    expect((await post(deps, "typeform", bad)).status).toBe(401);
    expect(await row("typeform")).toMatchObject([
      { event_id: "LtWXD3crgy", event_type: "form_response", entity_type: "form_response" },
    ]);
  });

  it("[conformance] generic kind, Lemon Squeezy: hex signature, no event id → a hash of stable fields that a re-serialised retry repeats", async () => {
    const payload = lemonSqueezySubscriptionUpdated();
    const sign = (body: string) => ({
      body,
      headers: {
        "content-type": "application/json",
        "x-signature": createHmac("sha256", LEMON_SECRET).update(body).digest("hex"),
        "x-event-name": "subscription_updated",
      },
    });
    expect((await post(deps, "lemon", sign(JSON.stringify(payload)))).body).toMatchObject({ duplicate: false });
    // The retry is serialised differently (indented): another body, the same fields, so the same id.
    expect((await post(deps, "lemon", sign(JSON.stringify(payload, null, 2)))).body).toMatchObject({ duplicate: true });
    const later = lemonSqueezySubscriptionUpdated({ updatedAt: "2024-05-01T00:00:00.000000Z" });
    expect((await post(deps, "lemon", sign(JSON.stringify(later)))).body).toMatchObject({ duplicate: false });
    const rows = await row("lemon");
    expect(rows).toHaveLength(2);
    const whole = createHash("sha256").update(JSON.stringify(payload)).digest("hex");
    expect(rows.map((r) => r.event_id)).not.toContain(whole);
    expect(await counts(db)).toEqual({ events: 2, deliveries: 3 });
  });
});
