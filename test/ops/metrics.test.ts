import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stripeSubscriptionEvent } from "../fixtures/stripe";
import { slackUrlVerification } from "../fixtures/slack";
import { setupTestDb } from "../db";
import { nowSeconds, signSlack, signStripe, TEST_SECRETS, type Delivery } from "../sign";
import { testSource, testSources } from "../sources";
import { parseExposition, scrape, startOpsServer, valueOf } from "./helpers";
import { seedEvents } from "@/test/seed-events";

// GET /metrics on the node:http server `npm start` and `npm run receiver` run, after real deliveries over loopback.
const { db } = setupTestDb();
const TOKEN = "metrics-token-for-the-tests-0123456789";
let server: Awaited<ReturnType<typeof startOpsServer>>;
beforeAll(async () => {
  server = await startOpsServer(db, {
    metricsToken: TOKEN,
    config: {
      sources: testSources({}, [testSource("shop-paused", "shopify", ["paused-secret"], { state: "paused" })]),
    },
  });
});
afterAll(() => server.close());

const post = (slug: string, d: Delivery) =>
  fetch(`${server.url}/api/webhooks/${slug}`, { method: "POST", headers: d.headers, body: d.body });
const event = (id: string) => JSON.stringify(stripeSubscriptionEvent({ eventId: id }));

describe("GET /metrics", () => {
  it("[ops] deliveries by source, outcome, refusal reason (unknown slugs as one); claim times; backlog", async () => {
    const first = signStripe(event("evt_metrics_1"), TEST_SECRETS.stripe);
    const answers = [
      await post("stripe", first),
      await post("stripe", first),
      await post("stripe", signStripe(event("evt_metrics_2"), TEST_SECRETS.stripe)),
      await post("stripe", signStripe(event("evt_metrics_bad"), "whsec_wrong")),
      await post("stripe", signStripe(event("evt_metrics_old"), TEST_SECRETS.stripe, nowSeconds() - 3600)),
      await post("stripe", signStripe(JSON.stringify({ id: "evt_big", pad: "x".repeat(5000) }), TEST_SECRETS.stripe)),
      await post("stripe", signStripe("not json at all", TEST_SECRETS.stripe)),
      await post("slack", signSlack(JSON.stringify(slackUrlVerification()), TEST_SECRETS.slack)),
      await post("shop-paused", { headers: { "content-type": "application/json" }, body: "{}" }),
      await post("no-such-source-1", first),
      await post("no-such-source-2", first),
    ];
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 401, 401, 413, 400, 200, 503, 404, 404]);
    // A backlog with an old event in it: one claimed an hour ago, one failed, one in a worker's hands.
    await db.execute(
      sql`update webhook_event_state set received_at = now() - interval '1 hour' where event_id = 'evt_metrics_1'`,
    );
    await seedEvents(
      db,
      "source, event_id, event_type, payload, raw_body, headers, status, lease_expires_at",
      sql`
      values ('stripe', 'evt_failed', 'x', '{}', '{}', '{}', 'failed', null),
             ('stripe', 'evt_leased', 'x', '{}', '{}', '{}', 'processing', now() + interval '30 seconds'),
             ('stripe', 'evt_done', 'x', '{}', '{}', '{}', 'settled', null)`,
    );

    const res = await scrape(server.url, TOKEN);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(res.headers.get("x-request-id")).toMatch(/\S/);
    const m = parseExposition(res.text);
    const deliveries = (source: string, outcome: string) => valueOf(m, "webhook_deliveries_total", { source, outcome });
    expect({
      claimed: deliveries("stripe", "claimed"),
      duplicate: deliveries("stripe", "duplicate"),
      badSignature: deliveries("stripe", "refused_bad_signature"),
      stale: deliveries("stripe", "refused_stale_timestamp"),
      tooLarge: deliveries("stripe", "refused_too_large"),
      notJson: deliveries("stripe", "refused_not_json"),
      handshake: deliveries("slack", "handshake"),
      paused: deliveries("shop-paused", "refused_paused"),
      unknown: deliveries("unknown", "rejected"),
    }).toEqual({
      claimed: 2,
      duplicate: 1,
      badSignature: 1,
      stale: 1,
      tooLarge: 1,
      notJson: 1,
      handshake: 1,
      paused: 1,
      unknown: 2,
    });
    // Unknown slugs never become label values.
    expect(m.filter((s) => /no-such-source/.test(JSON.stringify(s.labels)))).toEqual([]);

    // The claim histogram: every answer that reached the claim, in buckets.
    expect(valueOf(m, "webhook_claim_duration_seconds_count", { outcome: "claimed" })).toBe(2);
    expect(valueOf(m, "webhook_claim_duration_seconds_count", { outcome: "duplicate" })).toBe(1);
    expect(valueOf(m, "webhook_claim_duration_seconds_bucket", { outcome: "claimed", le: "+Inf" })).toBe(2);
    expect(valueOf(m, "webhook_claim_duration_seconds_bucket", { outcome: "claimed", le: "5" })).toBe(2);
    expect(valueOf(m, "webhook_claim_duration_seconds_sum", { outcome: "claimed" })).toBeGreaterThan(0);

    // The gauges, from the database.
    const events = (status: string) => valueOf(m, "webhook_events", { status });
    expect({
      claimed: events("claimed"),
      failed: events("failed"),
      processing: events("processing"),
      settled: events("settled"),
      dead: events("dead"),
      backlog: valueOf(m, "webhook_backlog_events"),
      estimated: valueOf(m, "webhook_events_estimated"),
      ok: valueOf(m, "webhook_db_gauges_ok"),
    }).toEqual({ claimed: 2, failed: 1, processing: 1, settled: 1, dead: 0, backlog: 4, estimated: 0, ok: 1 });
    const oldest = valueOf(m, "webhook_oldest_pending_seconds") ?? -1;
    expect(oldest).toBeGreaterThanOrEqual(3600);
    expect(oldest).toBeLessThan(3700);

    // prom-client's process defaults are there too.
    expect(valueOf(m, "process_cpu_user_seconds_total")).toBeGreaterThan(0);
    expect(m.some((s) => s.name === "nodejs_eventloop_lag_seconds")).toBe(true);
    // Worker and replay series are declared (their tests count them).
    expect(res.text).toContain("# TYPE webhook_attempts_total counter");
    expect(res.text).toContain("# TYPE webhook_processing_duration_seconds histogram");
    expect(res.text).toContain("# TYPE webhook_replay_events_total counter");
  });

  it("[ops] with METRICS_TOKEN set, a scrape without the bearer token, or with another one, answers 401", async () => {
    const none = await scrape(server.url);
    const wrong = await scrape(server.url, `${TOKEN}x`);
    const short = await scrape(server.url, TOKEN.slice(0, -1));
    const basic = await fetch(`${server.url}/metrics`, {
      headers: { authorization: `Basic ${Buffer.from(`x:${TOKEN}`).toString("base64")}` },
    });
    expect([none.status, wrong.status, short.status, basic.status]).toEqual([401, 401, 401, 401]);
    expect(none.headers.get("www-authenticate")).toBe('Bearer realm="metrics"');
    expect(none.text).not.toContain("webhook_");
    expect((await scrape(server.url, TOKEN)).status).toBe(200);
  });

  it("[ops] without a token the endpoint is open, and a database that fails leaves webhook_db_gauges_ok at 0 while the counters still answer", async () => {
    const open = await startOpsServer(db, {
      metricsToken: undefined,
      gauges: { read: () => Promise.reject(new Error("database down")) },
    });
    try {
      const res = await scrape(open.url);
      expect(res.status).toBe(200);
      const m = parseExposition(res.text);
      expect(valueOf(m, "webhook_db_gauges_ok")).toBe(0);
      expect(res.text).toContain("# TYPE webhook_deliveries_total counter");
    } finally {
      await open.close();
    }
  });
});
