import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { rowsOf } from "@/db/client";
import { setupTestDb } from "../db";
import {
  nowSeconds,
  signGithub,
  signPaddle,
  signShopify,
  signSlack,
  signStandard,
  signStripe,
  TEST_SECRETS,
} from "../sign";
import { testSources } from "../sources";
import { counts, depsFor, post } from "./harness";

const { db } = setupTestDb();
const REPLAY = "replay-token-0123456789abcdef-0123456789";
const deps = depsFor(db);

const stripeBody = (id = "evt_1RouteTest", created = 1_760_000_000) =>
  JSON.stringify({
    id,
    object: "event",
    type: "customer.subscription.updated",
    created,
    data: {
      object: { id: "sub_1RouteTest", object: "subscription", customer: "cus_RouteTest01", created: 1_700_000_000 },
    },
  });

describe("POST /api/webhooks/{source}", () => {
  it("[receiver] a verified new event answers 200 and leaves one claimed row", async () => {
    const res = await post(deps, "stripe", signStripe(stripeBody(), TEST_SECRETS.stripe));
    expect(res).toMatchObject({ status: 200, body: { received: true, duplicate: false }, outcome: "claimed" });
    const [row] = rowsOf<Record<string, unknown>>(
      await db.execute(
        sql`select source, event_id, event_type, status, entity_type, entity_id, entity_version::int as v, subject_ids from webhook_event`,
      ),
    );
    expect(row).toEqual({
      source: "stripe",
      event_id: "evt_1RouteTest",
      event_type: "customer.subscription.updated",
      status: "claimed",
      entity_type: "subscription",
      entity_id: "sub_1RouteTest",
      v: 1_760_000_000,
      subject_ids: ["evt_1RouteTest", "sub_1RouteTest", "cus_RouteTest01"],
    });
  });

  it("[receiver] a retry of a claimed event answers 200, adds no row and is counted as a delivery", async () => {
    const d = signStripe(stripeBody(), TEST_SECRETS.stripe);
    await post(deps, "stripe", d);
    const again = await post(deps, "stripe", signStripe(stripeBody(), TEST_SECRETS.stripe));
    expect(again).toMatchObject({ status: 200, body: { received: true, duplicate: true }, outcome: "duplicate" });
    expect(await counts(db)).toEqual({ events: 1, deliveries: 2 });
  });

  it("[receiver] each provider's signed delivery is claimed under its own event id", async () => {
    const deliveries = [
      ["stripe", signStripe(stripeBody("evt_each"), TEST_SECRETS.stripe), "evt_each"],
      [
        "github",
        await signGithub('{"action":"opened","issue":{"id":1}}', TEST_SECRETS.github, { delivery: "gh-1" }),
        "gh-1",
      ],
      [
        "shopify",
        signShopify('{"id":450789469,"updated_at":"2026-11-29T10:00:00-05:00"}', TEST_SECRETS.shopify, {
          webhookId: "shop-w1",
          eventId: "shop-e1",
        }),
        // The event id (scoped by topic), not the webhook id: two subscriptions' deliveries are one event.
        "shop-e1:orders/updated",
      ],
      [
        "paddle",
        signPaddle(
          '{"event_id":"evt_01pad","event_type":"subscription.updated","occurred_at":"2026-11-29T10:00:00.123456Z","data":{"id":"sub_01pad"}}',
          TEST_SECRETS.paddle,
        ),
        "evt_01pad",
      ],
      [
        "slack",
        signSlack(
          '{"type":"event_callback","event_id":"Ev01","event_time":1764410000,"event":{"type":"message","channel":"C1"}}',
          TEST_SECRETS.slack,
        ),
        "Ev01",
      ],
      [
        "standard",
        signStandard(
          '{"type":"invoice.paid","timestamp":"2026-11-29T10:00:00Z","data":{"id":"inv_1"}}',
          TEST_SECRETS.standard,
          { id: "msg_std1" },
        ),
        "msg_std1",
      ],
    ] as const;
    for (const [source, delivery, id] of deliveries) {
      const res = await post(deps, source, delivery);
      expect(res.status, `${source}: ${JSON.stringify(res.body)}`).toBe(200);
      const rows = rowsOf<{ event_id: string }>(
        await db.execute(sql`select event_id from webhook_event where source = ${source}`),
      );
      expect(rows.map((r) => r.event_id)).toEqual([id]);
    }
  });

  describe("401 and nothing written", () => {
    const cases: [string, () => Promise<{ status: number; body: Record<string, unknown> }>, string][] = [
      [
        "a missing signature",
        () => post(deps, "stripe", { body: stripeBody(), headers: {} }),
        "missing Stripe-Signature header",
      ],
      [
        "a signature made with another secret",
        () => post(deps, "stripe", signStripe(stripeBody(), "whsec_other")),
        "signature mismatch",
      ],
      [
        "a tampered body",
        async () => {
          const d = signStripe(stripeBody(), TEST_SECRETS.stripe);
          return post(deps, "stripe", { ...d, body: d.body.replace("cus_RouteTest01", "cus_RouteTest02") });
        },
        "signature mismatch",
      ],
      [
        "a timestamp older than the tolerance",
        () => post(deps, "stripe", signStripe(stripeBody(), TEST_SECRETS.stripe, nowSeconds() - 301)),
        "tolerance",
      ],
      [
        "a timestamp newer than the tolerance",
        () => post(deps, "stripe", signStripe(stripeBody(), TEST_SECRETS.stripe, nowSeconds() + 301)),
        "tolerance",
      ],
    ];
    for (const [name, send, reason] of cases) {
      it(`[receiver] ${name} answers 401 and writes nothing`, async () => {
        const res = await send();
        expect(res.status).toBe(401);
        expect(String(res.body.error)).toContain(reason);
        expect(await counts(db)).toEqual({ events: 0, deliveries: 0 });
      });
    }
  });

  it("[receiver] a tighter WEBHOOK_TOLERANCE_SECONDS is honoured", async () => {
    const strict = depsFor(db, { toleranceSeconds: 10 });
    const res = await post(strict, "stripe", signStripe(stripeBody(), TEST_SECRETS.stripe, nowSeconds() - 60));
    expect(res.status).toBe(401);
  });

  it("[receiver] any of several comma-configured secrets verifies (rotation)", async () => {
    const rotating = depsFor(db, { sources: testSources({ stripe: ["whsec_old", TEST_SECRETS.stripe] }) });
    expect((await post(rotating, "stripe", signStripe(stripeBody("evt_a"), "whsec_old"))).status).toBe(200);
    expect((await post(rotating, "stripe", signStripe(stripeBody("evt_b"), TEST_SECRETS.stripe))).status).toBe(200);
    expect((await post(rotating, "stripe", signStripe(stripeBody("evt_c"), "whsec_retired"))).status).toBe(401);
  });

  it("[receiver] a signed body that is not JSON answers 400 and writes nothing", async () => {
    const res = await post(deps, "stripe", signStripe("id=evt_1&type=x", TEST_SECRETS.stripe));
    expect(res).toMatchObject({ status: 400, body: { error: "body is not valid JSON" } });
    expect(await counts(db)).toEqual({ events: 0, deliveries: 0 });
  });

  it("[receiver] a signed body that is not UTF-8 answers 400 and writes nothing", async () => {
    const body = Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]).toString("latin1");
    const d = signShopify(body, TEST_SECRETS.shopify);
    const req = new Request("http://ledger.test/api/webhooks/shopify", {
      method: "POST",
      headers: {
        ...d.headers,
        "x-shopify-hmac-sha256": (await import("node:crypto"))
          .createHmac("sha256", TEST_SECRETS.shopify)
          .update(Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]))
          .digest("base64"),
      },
      body: Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
    });
    const { receiveWebhook } = await import("@/lib/receiver/receive");
    const { response } = await receiveWebhook("shopify", req, deps);
    expect(response.status).toBe(400);
    expect(await counts(db)).toEqual({ events: 0, deliveries: 0 });
  });

  it("[receiver] a signed event without its id answers 400 naming the missing field", async () => {
    const res = await post(deps, "stripe", signStripe('{"type":"customer.created","data":{}}', TEST_SECRETS.stripe));
    expect(res).toMatchObject({ status: 400, body: { error: "missing event id (payload.id)" } });
    expect(await counts(db)).toEqual({ events: 0, deliveries: 0 });
  });

  it("[receiver] a signed JSON body PostgreSQL cannot store answers 400, and deliveries claimed beside it are unharmed", async () => {
    // A number past numeric's range: JSON allows it, jsonb does not. Sent at once, the three may share a claim statement.
    const bad = stripeBody("evt_huge").replace('"object":"event"', `"object":"event","n":1${"0".repeat(140_000)}`);
    const [before, refused, after] = await Promise.all([
      post(deps, "stripe", signStripe(stripeBody("evt_ok1"), TEST_SECRETS.stripe)),
      post(deps, "stripe", signStripe(bad, TEST_SECRETS.stripe)),
      post(deps, "stripe", signStripe(stripeBody("evt_ok2"), TEST_SECRETS.stripe)),
    ]);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatch(/^payload cannot be stored: .*\(22003\)$/);
    expect([before.status, after.status]).toEqual([200, 200]);
    const ids = rowsOf<{ event_id: string }>(
      await db.execute(sql`select event_id from webhook_event order by event_id`),
    );
    expect(ids.map((r) => r.event_id)).toEqual(["evt_ok1", "evt_ok2"]);
    expect(await counts(db)).toEqual({ events: 2, deliveries: 2 });
  });

  it("[receiver] a lone surrogate escape in a payload is stored (raw body exact, U+FFFD in the jsonb copy), not refused", async () => {
    const odd = stripeBody("evt_surrogate").replace('"object":"event"', '"object":"event","note":"\\ud800"');
    expect((await post(deps, "stripe", signStripe(odd, TEST_SECRETS.stripe))).status).toBe(200);
    const [row] = rowsOf<{ raw_body: string; note: string }>(
      await db.execute(sql`select raw_body, payload->>'note' as note from webhook_event`),
    );
    expect(row).toEqual({ raw_body: odd, note: "\uFFFD" });
  });

  it("[receiver] a signed event nested past WEBHOOK_MAX_DEPTH answers 400 naming the limit; valid deliveries beside it are claimed", async () => {
    const deep = JSON.stringify({
      id: "evt_deep",
      object: "event",
      type: "invoice.paid",
      created: 1_760_000_000,
      data: { object: { id: "in_1" } },
    }).replace('"data"', `"x":${"[".repeat(100_000)}${"]".repeat(100_000)},"data"`);
    const valid = Array.from({ length: 40 }, (_, i) =>
      post(deps, "stripe", signStripe(stripeBody(`evt_v${i}`), TEST_SECRETS.stripe)),
    );
    const refused = [0, 1, 2].map(() => post(deps, "stripe", signStripe(deep, TEST_SECRETS.stripe)));
    const answers = await Promise.all([...valid, ...refused]);
    expect(answers.slice(40).map((a) => [a.status, a.body.error])).toEqual(
      Array(3).fill([400, "body is JSON nested deeper than 64 levels"]),
    );
    expect(answers.slice(0, 40).every((a) => a.status === 200)).toBe(true);
    expect(await counts(db)).toEqual({ events: 40, deliveries: 40 });
  });

  it("[receiver] a signed Standard Webhooks event with a timestamp in 2300 is claimed (200), with a note saying its version is unusable", async () => {
    const body = JSON.stringify({ type: "user.updated", timestamp: "2300-01-01T00:00:00Z", data: { id: "usr_1" } });
    const res = await post(deps, "standard", signStandard(body, TEST_SECRETS.standard, { id: "msg_2300" }));
    expect(res.status).toBe(200);
    const [row] = rowsOf<{ entity_version: string | null; intake_note: string }>(
      await db.execute(sql`select entity_version, intake_note from webhook_event`),
    );
    expect(row?.entity_version).toBeNull();
    expect(row?.intake_note).toBe(
      'version unusable: timestamp "2300-01-01T00:00:00Z" is beyond 2255-06-05T23:47:34.740Z, the latest time a version holds exactly',
    );
  });

  it("[receiver] an event id PostgreSQL cannot store answers 400 naming the id, and writes nothing", async () => {
    const body = stripeBody("evt_nul").replace('"id":"evt_nul"', '"id":"evt_\\u0000x"');
    const res = await post(deps, "stripe", signStripe(body, TEST_SECRETS.stripe));
    expect(res).toMatchObject({
      status: 400,
      body: { error: "event id holds U+0000 or a lone surrogate, which cannot be stored" },
    });
    expect(await counts(db)).toEqual({ events: 0, deliveries: 0 });
  });

  it("[receiver] an unknown source answers 404", async () => {
    const res = await post(deps, "mailgun", signStripe(stripeBody(), TEST_SECRETS.stripe));
    expect(res).toMatchObject({ status: 404, body: { error: 'no source "mailgun"' } });
  });

  it("[receiver] a source whose secret is unset answers 404 even with a valid replay token", async () => {
    const unconfigured = depsFor(db, {
      sources: testSources({ github: [] }),
      replayTokens: { "*": [REPLAY] },
    });
    const res = await post(unconfigured, "github", await signGithub("{}", TEST_SECRETS.github), {
      "x-replay-token": REPLAY,
    });
    expect(res).toMatchObject({ status: 404, body: { error: 'no source "github"' } });
    expect(await counts(db)).toEqual({ events: 0, deliveries: 0 });
  });

  it("[receiver] a body over WEBHOOK_MAX_BYTES answers 413 and writes nothing", async () => {
    const small = depsFor(db, { maxBytes: 200 });
    const big = JSON.stringify({ id: "evt_big", type: "x", pad: "x".repeat(500) });
    const res = await post(small, "stripe", signStripe(big, TEST_SECRETS.stripe));
    expect(res).toMatchObject({ status: 413, body: { error: "body exceeds 200 bytes" } });
    expect(await counts(db)).toEqual({ events: 0, deliveries: 0 });
  });

  it("[receiver] a streamed body without Content-Length is cut off at WEBHOOK_MAX_BYTES", async () => {
    const small = depsFor(db, { maxBytes: 200 });
    const chunk = new TextEncoder().encode("x".repeat(100));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        sent += 1;
        if (sent > 10) controller.close();
        else controller.enqueue(chunk);
      },
    });
    const req = new Request("http://ledger.test/api/webhooks/stripe", {
      method: "POST",
      body: stream,
      duplex: "half",
    } as RequestInit);
    const { receiveWebhook } = await import("@/lib/receiver/receive");
    const { response } = await receiveWebhook("stripe", req, small);
    expect(response.status).toBe(413);
    expect(sent).toBeLessThan(10);
  });

  it("[receiver] Slack's url_verification answers the challenge and writes nothing", async () => {
    const res = await post(
      deps,
      "slack",
      signSlack(
        '{"token":"t","challenge":"3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P","type":"url_verification"}',
        TEST_SECRETS.slack,
      ),
    );
    expect(res).toMatchObject({
      status: 200,
      body: { challenge: "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P" },
      outcome: "handshake",
    });
    expect(await counts(db)).toEqual({ events: 0, deliveries: 0 });
  });

  it("[receiver] an unsigned url_verification gets no challenge", async () => {
    const res = await post(deps, "slack", { body: '{"challenge":"x","type":"url_verification"}', headers: {} });
    expect(res.status).toBe(401);
  });

  describe("replay token", () => {
    const unsigned = { body: stripeBody("evt_replayed"), headers: { "content-type": "application/json" } };

    it("[receiver] the right X-Replay-Token stands in for the signature and marks the row via replay", async () => {
      const res = await post(depsFor(db, { replayTokens: { "*": [REPLAY] } }), "stripe", unsigned, {
        "x-replay-token": REPLAY,
      });
      expect(res.status).toBe(200);
      const rows = rowsOf<{ via: string; headers: Record<string, string> }>(
        await db.execute(sql`select via, headers from webhook_event`),
      );
      expect(rows).toHaveLength(1);
      expect(rows[0]?.via).toBe("replay");
      expect(rows[0]?.headers).not.toHaveProperty("x-replay-token");
    });

    it("[receiver] a wrong X-Replay-Token answers 401 and writes nothing", async () => {
      const res = await post(depsFor(db, { replayTokens: { "*": [REPLAY] } }), "stripe", unsigned, {
        "x-replay-token": `${REPLAY.slice(0, -1)}X`,
      });
      expect(res).toMatchObject({ status: 401, body: { error: "replay token mismatch" } });
      expect(await counts(db)).toEqual({ events: 0, deliveries: 0 });
    });

    it("[receiver] any X-Replay-Token is refused when REPLAY_TOKEN is unset, even on a signed delivery", async () => {
      const res = await post(deps, "stripe", signStripe(stripeBody(), TEST_SECRETS.stripe), { "x-replay-token": "" });
      expect(res.status).toBe(401);
      expect(String(res.body.error)).toContain("no replay token is configured");
      expect(await counts(db)).toEqual({ events: 0, deliveries: 0 });
    });
  });

  it("[receiver] cookies and authorization are not stored; signature headers are", async () => {
    await post(deps, "stripe", signStripe(stripeBody(), TEST_SECRETS.stripe), {
      cookie: "session=s3cret",
      authorization: "Bearer s3cret",
    });
    const [row] = rowsOf<{ headers: Record<string, string> }>(await db.execute(sql`select headers from webhook_event`));
    expect(row?.headers).not.toHaveProperty("cookie");
    expect(row?.headers).not.toHaveProperty("authorization");
    expect(row?.headers["stripe-signature"]).toMatch(/^t=\d+,v1=[0-9a-f]{64}/);
  });

  it("[receiver] error bodies never echo the configured secret", async () => {
    const res = await post(deps, "stripe", signStripe(stripeBody(), "whsec_wrong"));
    expect(JSON.stringify(res.body)).not.toContain(TEST_SECRETS.stripe);
    expect(JSON.stringify(res.body)).not.toContain("whsec_");
  });
});
