import { randomUUID } from "node:crypto";
import { expect, test } from "@playwright/test";
import { stripeSubscriptionEvent } from "../../test/fixtures/stripe";
import { signGithub, signStripe } from "../../test/sign";
import { e2eSql } from "../db";
import { E2E } from "../env";

const sql = e2eSql();
test.afterAll(async () => sql.end());

const stripeSecret = "whsec_e2e_stripe";
const event = (id: string) =>
  JSON.stringify(stripeSubscriptionEvent({ eventId: id, subscriptionId: `sub_${id}`, customerId: "cus_E2e000001" }));

test("[api] GET /api/health answers 200 with the database up", async ({ request }) => {
  const res = await request.get("/api/health");
  expect(res.status()).toBe(200);
  expect(await res.json()).toEqual({ ok: true, database: "up" });
});

test("[api] a signed Stripe event is claimed once through the built app; its retry answers 200 and adds no row", async ({
  request,
}) => {
  const id = `evt_${randomUUID().replaceAll("-", "")}`;
  const first = signStripe(event(id), stripeSecret);
  const res = await request.post("/api/webhooks/stripe", { headers: first.headers, data: first.body });
  expect(res.status()).toBe(200);
  expect(await res.json()).toEqual({ received: true, duplicate: false });
  const retry = signStripe(event(id), stripeSecret);
  const again = await request.post("/api/webhooks/stripe", { headers: retry.headers, data: retry.body });
  expect(again.status()).toBe(200);
  expect(await again.json()).toEqual({ received: true, duplicate: true });
  const rows = await sql`select status, raw_body from webhook_event where source = 'stripe' and event_id = ${id}`;
  expect(rows).toHaveLength(1);
  expect(rows[0]?.raw_body).toBe(first.body);
  // The embedded worker may already have taken it; it must never have failed.
  expect(["claimed", "processing", "settled"]).toContain(rows[0]?.status);
  const deliveries = await sql`select claimed from webhook_delivery where event_id = ${id} order by id`;
  expect(deliveries.map((d) => d.claimed)).toEqual([true, false]);
});

test("[api] the rotated-out Stripe secret still verifies while both are configured", async ({ request }) => {
  const d = signStripe(event(`evt_${randomUUID().slice(0, 8)}`), "whsec_e2e_stripe_old");
  expect((await request.post("/api/webhooks/stripe", { headers: d.headers, data: d.body })).status()).toBe(200);
});

test("[api] a bad signature answers 401 with a JSON reason and writes nothing", async ({ request }) => {
  const id = `evt_${randomUUID().slice(0, 8)}`;
  const d = signStripe(event(id), "whsec_attacker");
  const res = await request.post("/api/webhooks/stripe", { headers: d.headers, data: d.body });
  expect(res.status()).toBe(401);
  expect(await res.json()).toEqual({ error: "signature mismatch" });
  expect(await sql`select 1 from webhook_event where event_id = ${id}`).toHaveLength(0);
});

test("[api] GitHub deliveries are keyed by X-GitHub-Delivery", async ({ request }) => {
  const delivery = randomUUID();
  const d = await signGithub(
    JSON.stringify({ action: "opened", issue: { id: 1, number: 1 }, repository: { id: 2, full_name: "o/r" } }),
    "e2e-github",
    { delivery },
  );
  expect((await request.post("/api/webhooks/github", { headers: d.headers, data: d.body })).status()).toBe(200);
  const rows =
    await sql`select event_type, entity_type from webhook_event where source = 'github' and event_id = ${delivery}`;
  expect(rows).toEqual([{ event_type: "issues.opened", entity_type: "issue" }]);
});

test("[api] an unknown source answers 404 and a body over the limit 413", async ({ request }) => {
  expect((await request.post("/api/webhooks/mailchimp", { data: "{}" })).status()).toBe(404);
  const big = "x".repeat(1024 * 1024 + 1);
  expect(
    (
      await request.post("/api/webhooks/stripe", { data: big, headers: { "content-type": "application/json" } })
    ).status(),
  ).toBe(413);
});

// Paddle: a source whose events the receiver cannot confirm by id, so the token alone lets it in. (With a
// Stripe key configured, as here, a Stripe replay is fetched from Stripe: test/receiver/replay-token.test.ts.)
test("[api] the replay token path records via = replay; a wrong token is refused", async ({ request }) => {
  const id = `evt_${randomUUID().slice(0, 8)}`;
  const paddle = (eventId: string) =>
    JSON.stringify({
      event_id: eventId,
      event_type: "transaction.completed",
      occurred_at: "2026-11-01T10:00:00.000000Z",
      data: { id: `txn_${eventId}` },
    });
  const ok = await request.post("/api/webhooks/paddle", {
    headers: { "x-replay-token": E2E.replayToken },
    data: paddle(id),
  });
  expect(ok.status()).toBe(200);
  expect(await sql`select via from webhook_event where event_id = ${id}`).toEqual([{ via: "replay" }]);
  const bad = await request.post("/api/webhooks/paddle", {
    headers: { "x-replay-token": "guess" },
    data: paddle(`${id}x`),
  });
  expect(bad.status()).toBe(401);
});
