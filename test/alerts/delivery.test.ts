import { sql } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { afterEach, describe, expect, it } from "vitest";
import { connectPostgres } from "@/db/client";
import { alertChannelsFromEnv } from "@/lib/alerts/channels";
import { deliverDue } from "@/lib/alerts/deliver";
import { evaluateAlerts } from "@/lib/alerts/evaluate";
import { getAlertsOverview, listAlertIncidents } from "@/lib/alerts/queries";
import { defaultRules } from "@/lib/alerts/rules";
import type { Actor } from "@/lib/roles";
import { setupTestDb, testDatabaseUrl } from "../db";
import {
  evaluator,
  fakeChannel,
  insertEvent,
  query,
  SECRET,
  testAlertSettings,
  waitFor,
  type FakeChannel,
} from "./helpers";
import { seedEvents } from "@/test/seed-events";

const { db } = setupTestDb();
const support: Actor = { id: "u-support", email: "support@example.com", role: "support" };

const servers: FakeChannel[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
async function server(...args: Parameters<typeof fakeChannel>) {
  const s = await fakeChannel(...args);
  servers.push(s);
  return s;
}

const json = (body: string) => JSON.parse(body) as Record<string, unknown> & { data: Record<string, unknown> };

describe("alerts: a dead event reaches both channels once", () => {
  it("[alerts] a dead event sends one Slack message and one signed webhook; the next evaluation sends nothing", async () => {
    const slack = await server();
    const hook = await server(() => 200, "/alerts/in");
    const ev = evaluator(db, {
      env: { ALERT_SLACK_WEBHOOK_URL: slack.url, ALERT_WEBHOOK_URL: hook.url, ALERT_WEBHOOK_SECRET: SECRET },
    });
    await insertEvent(db, { eventId: "evt_dead_1", status: "dead", attempts: 8 });

    const first = await ev.tick();
    expect(first.errors).toEqual([]);
    expect(first.evaluation).toMatchObject({ evaluated: true, opened: 1, notifications: 1 });
    expect(first.delivery).toMatchObject({ sent: 2, retrying: 0, failed: 0 });

    expect(slack.received).toHaveLength(1);
    const msg = JSON.parse(slack.received[0]!.body) as { text: string; blocks: unknown[] };
    expect(msg.text).toContain("stripe/evt_dead_1 (invoice.paid) went dead after 8 attempts");
    expect(msg.blocks.length).toBeGreaterThan(0);
    expect(JSON.stringify(msg.blocks)).toContain("https://ledger.example.com/events/stripe/evt_dead_1");

    expect(hook.received).toHaveLength(1);
    const req = hook.received[0]!;
    // Any Standard Webhooks receiver can check it: the reference library verifies the signature.
    const verified = new Webhook(SECRET).verify(req.body, {
      "webhook-id": String(req.headers["webhook-id"]),
      "webhook-timestamp": String(req.headers["webhook-timestamp"]),
      "webhook-signature": String(req.headers["webhook-signature"]),
    }) as { type: string; data: { rule: string; incident: { subject: string }; count: number } };
    expect(verified.type).toBe("alert.firing");
    expect(verified.data.rule).toBe("dead_event");
    expect(verified.data.incident.subject).toBe("stripe/evt_dead_1");
    expect(verified.data.count).toBe(1);
    expect(() =>
      new Webhook("whsec_" + Buffer.alloc(24, 7).toString("base64")).verify(req.body, {
        "webhook-id": String(req.headers["webhook-id"]),
        "webhook-timestamp": String(req.headers["webhook-timestamp"]),
        "webhook-signature": String(req.headers["webhook-signature"]),
      }),
    ).toThrow();

    const second = await ev.tick();
    expect(second.evaluation).toMatchObject({ evaluated: true, opened: 0, resolved: 0, notifications: 0 });
    expect(slack.received).toHaveLength(1);
    expect(hook.received).toHaveLength(1);
    const incidents = await query<{ n: number }>(db, sql`select count(*)::int as n from alert_incident`);
    expect(incidents[0]!.n).toBe(1);
  });

  it("[alerts] the event leaving dead sends one resolved message to each channel", async () => {
    const slack = await server();
    const hook = await server(() => 200, "/alerts/in");
    const ev = evaluator(db, {
      env: { ALERT_SLACK_WEBHOOK_URL: slack.url, ALERT_WEBHOOK_URL: hook.url, ALERT_WEBHOOK_SECRET: SECRET },
    });
    await insertEvent(db, { eventId: "evt_dead_2", status: "dead" });
    await ev.tick();
    await db.execute(sql`update webhook_event_state set status = 'claimed' where event_id = 'evt_dead_2'`);
    const resolved = await ev.tick();
    expect(resolved.evaluation).toMatchObject({ opened: 0, resolved: 1, notifications: 1 });
    expect(slack.received).toHaveLength(2);
    expect(JSON.parse(slack.received[1]!.body).text).toContain("Resolved: stripe/evt_dead_2 is claimed now");
    expect(hook.received).toHaveLength(2);
    const body = json(hook.received[1]!.body);
    expect(body.type).toBe("alert.resolved");
    expect(body.data.incident).toMatchObject({
      subject: "stripe/evt_dead_2",
      resolution: "stripe/evt_dead_2 is claimed now",
    });
    // Each delivery has its own id, kept across its retries.
    expect(hook.received[1]!.headers["webhook-id"]).not.toBe(hook.received[0]!.headers["webhook-id"]);

    await ev.tick();
    expect(slack.received).toHaveLength(2);
    const [row] = await query<{ state: string; resolved: boolean }>(
      db,
      sql`select state, resolved_at is not null as resolved from alert_incident`,
    );
    expect(row).toEqual({ state: "resolved", resolved: true });
  });

  it("[alerts] a burst of 500 dead events is one message listing the first 10 and the count", async () => {
    const slack = await server();
    const ev = evaluator(db, { env: { ALERT_SLACK_WEBHOOK_URL: slack.url } });
    await seedEvents(
      db,
      "source, event_id, event_type, payload, raw_body, headers, status, attempts",
      sql`
      select 'stripe', 'evt_burst_' || lpad(i::text, 3, '0'), 'invoice.paid', '{}'::jsonb, '{}', '{}'::jsonb, 'dead', 8
      from generate_series(1, 500) i`,
    );
    const r = await ev.tick();
    expect(r.evaluation).toMatchObject({ opened: 500, notifications: 1 });
    expect(slack.received).toHaveLength(1);
    const msg = JSON.parse(slack.received[0]!.body) as { text: string; blocks: { text?: { text: string } }[] };
    expect(msg.text).toContain("500 events went dead");
    const listed = msg.blocks[1]!.text!.text;
    expect(listed.match(/^• /gm)).toHaveLength(10);
    expect(listed).toContain("…and 490 more");
    await ev.tick();
    expect(slack.received).toHaveLength(1);
  });

  it("[alerts] with no channel set, dead events still open incidents the console lists; nothing is sent", async () => {
    await insertEvent(db, { eventId: "evt_dead_3", status: "dead" });
    await insertEvent(db, { eventId: "evt_dead_4", status: "dead" });
    const r = await evaluator(db).tick();
    expect(r.evaluation).toMatchObject({ evaluated: true, opened: 2, notifications: 1 });
    expect(r.delivery).toMatchObject({ sent: 0, retrying: 0, failed: 0 });
    const deliveries = await query<{ n: number }>(db, sql`select count(*)::int as n from alert_delivery`);
    expect(deliveries[0]!.n).toBe(0);
    // What the overview's Alerts card and the alerts page read.
    const incidents = await listAlertIncidents({ db, actor: support, limit: 20 });
    expect(incidents.filter((i) => i.state === "firing").map((i) => i.subject)).toEqual([
      "stripe/evt_dead_4",
      "stripe/evt_dead_3",
    ]);
    const config = { channels: alertChannelsFromEnv({}), defaults: defaultRules({}), evaluateMs: 60_000 };
    const { rules, channels } = await getAlertsOverview({ db, actor: support, config });
    expect(rules.find((x) => x.rule === "dead_event")).toMatchObject({ enabled: true, firing: 2 });
    expect(channels.every((c) => !c.configured)).toBe(true);
  });

  it("[alerts] the dead-event rule turned off closes its incidents", async () => {
    await insertEvent(db, { eventId: "evt_dead_5", status: "dead" });
    expect((await evaluator(db).tick()).evaluation).toMatchObject({ opened: 1 });
    const off = await evaluator(db, { env: { ALERT_DEAD_EVENTS: "off" } }).tick();
    expect(off.evaluation).toMatchObject({ evaluated: true, opened: 0, notifications: 0 });
    const rows = await query<{ state: string; resolution: string }>(
      db,
      sql`select state, resolution from alert_incident`,
    );
    expect(rows).toEqual([{ state: "resolved", resolution: "the rule was turned off" }]);
  });
});

describe("alerts: sending fails, retries, never holds the evaluator", () => {
  it("[alerts] a channel answering 500 then 200 is retried with backoff and delivered once", async () => {
    const slack = await server((n) => (n === 1 ? 500 : 200));
    const logs: string[] = [];
    const ev = evaluator(db, {
      env: { ALERT_SLACK_WEBHOOK_URL: slack.url },
      settings: { backoffBaseMs: 400, backoffMaxMs: 400 },
      log: (m) => logs.push(m),
    });
    await insertEvent(db, { eventId: "evt_retry", status: "dead" });
    const first = await ev.tick();
    expect(first.delivery).toMatchObject({ sent: 0, retrying: 1 });
    const [pending] = await query<{ status: string; attempts: number; last_status: number; wait_ms: number }>(
      db,
      sql`select status, attempts, last_status, extract(epoch from next_attempt_at - now()) * 1000 as wait_ms
          from alert_delivery`,
    );
    expect(pending).toMatchObject({ status: "pending", attempts: 1, last_status: 500 });
    expect(Number(pending!.wait_ms)).toBeGreaterThan(100); // backoff: half the base at least, less elapsed time

    // Not due yet: nothing is sent.
    await ev.tick({ evaluate: false });
    expect(slack.received).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 450));
    const later = await ev.tick();
    expect(later.delivery).toMatchObject({ sent: 1 });
    expect(slack.received).toHaveLength(2);
    await ev.tick();
    expect(slack.received).toHaveLength(2);
    const [sent] = await query<{ status: string; attempts: number; last_error: string | null }>(
      db,
      sql`select status, attempts, last_error from alert_delivery`,
    );
    expect(sent).toEqual({ status: "sent", attempts: 2, last_error: null });
    expect(logs.join("\n")).toContain("answered 500");
    // Neither the URL (its path is the token) nor the channel's answer body reaches the log.
    expect(logs.join("\n")).not.toContain("XXXXsecretTOKEN");
    expect(logs.join("\n")).not.toContain("SECRET-RESPONSE-BODY");
  });

  it("[alerts] attempts are bounded: past the last one the delivery is failed, with its error", async () => {
    const slack = await server(() => 503);
    const ev = evaluator(db, {
      env: { ALERT_SLACK_WEBHOOK_URL: slack.url },
      settings: { maxAttempts: 2, backoffBaseMs: 100, backoffMaxMs: 100 },
    });
    await insertEvent(db, { eventId: "evt_bounded", status: "dead" });
    await ev.tick();
    await new Promise((r) => setTimeout(r, 150));
    const r = await ev.tick();
    expect(r.delivery).toMatchObject({ failed: 1 });
    await new Promise((r) => setTimeout(r, 150));
    await ev.tick();
    expect(slack.received).toHaveLength(2);
    const [row] = await query<{ status: string; attempts: number; last_error: string }>(
      db,
      sql`select status, attempts, last_error from alert_delivery`,
    );
    expect(row).toEqual({ status: "failed", attempts: 2, last_error: "answered 503" });
  });

  it("[alerts] a hanging channel: the tick still completes within its bound, and the delivery retries", async () => {
    const slack = await server(() => "hang");
    const hook = await server(() => 200, "/alerts/in");
    const ev = evaluator(db, {
      env: { ALERT_SLACK_WEBHOOK_URL: slack.url, ALERT_WEBHOOK_URL: hook.url, ALERT_WEBHOOK_SECRET: SECRET },
      settings: { sendTimeoutMs: 400 },
    });
    await insertEvent(db, { eventId: "evt_hang", status: "dead" });
    const started = Date.now();
    const r = await ev.tick();
    const took = Date.now() - started;
    expect(took).toBeLessThan(400 + 1500);
    expect(slack.received).toHaveLength(1);
    expect(hook.received).toHaveLength(1); // the other channel is not held up by the hanging one
    expect(r.delivery).toMatchObject({ sent: 1, retrying: 1 });
    const rows = await query<{ channel: string; status: string; last_error: string | null }>(
      db,
      sql`select channel, status, last_error from alert_delivery order by channel`,
    );
    expect(rows).toEqual([
      { channel: "slack", status: "pending", last_error: "no answer within 400 ms" },
      { channel: "webhook", status: "sent", last_error: null },
    ]);
  });

  it("[alerts] stop() aborts a request in flight and returns at once; the delivery is tried again later", async () => {
    const slack = await server(() => "hang");
    const ev = evaluator(db, {
      env: { ALERT_SLACK_WEBHOOK_URL: slack.url },
      settings: { sendTimeoutMs: 10_000, evaluateMs: 1000 },
    });
    await insertEvent(db, { eventId: "evt_stop", status: "dead" });
    ev.start();
    await waitFor(() => slack.received.length === 1, 5000);
    const started = Date.now();
    await ev.stop();
    expect(Date.now() - started).toBeLessThan(1500);
    const [row] = await query<{ status: string; last_error: string }>(
      db,
      sql`select status, last_error from alert_delivery`,
    );
    expect(row).toEqual({ status: "pending", last_error: "stopped: shutting down" });
  });

  it("[alerts] a message queued for a channel the deploy no longer sets fails at once, not after every retry", async () => {
    await insertEvent(db, { eventId: "evt_gone", status: "dead" });
    await evaluateAlerts(db, {
      defaults: defaultRules({ ALERT_DEAD_EVENTS: "on" }),
      channels: ["slack"],
      sources: [],
      evaluatorId: "old-deploy",
    });
    const r = await deliverDue(db, alertChannelsFromEnv({}), testAlertSettings());
    expect(r).toMatchObject({ sent: 0, retrying: 0, failed: 1 });
    const [row] = await query<{ status: string; attempts: number; last_error: string }>(
      db,
      sql`select status, attempts, last_error from alert_delivery`,
    );
    expect(row).toEqual({ status: "failed", attempts: 1, last_error: "ALERT_SLACK_WEBHOOK_URL is no longer set" });
  });

  it("[alerts] a redirect is not followed and counts as a failure", async () => {
    const elsewhere = await server();
    const slack = await server(() => ({ status: 302, headers: { location: elsewhere.url } }));
    const ev = evaluator(db, { env: { ALERT_SLACK_WEBHOOK_URL: slack.url } });
    await insertEvent(db, { eventId: "evt_redirect", status: "dead" });
    const r = await ev.tick();
    expect(r.delivery).toMatchObject({ sent: 0, retrying: 1 });
    expect(elsewhere.received).toHaveLength(0);
    const [row] = await query<{ last_error: string }>(db, sql`select last_error from alert_delivery`);
    expect(row!.last_error).toBe("answered 302: redirects are not followed");
  });
});

describe("alerts: several evaluators", () => {
  it("[alerts] two evaluators at once (two pools) send one message", async () => {
    const slack = await server();
    const hook = await server(() => 200, "/alerts/in");
    const env = { ALERT_SLACK_WEBHOOK_URL: slack.url, ALERT_WEBHOOK_URL: hook.url, ALERT_WEBHOOK_SECRET: SECRET };
    const other = connectPostgres(testDatabaseUrl(), { max: 4 });
    try {
      const a = evaluator(db, { env, settings: { evaluatorId: "a" } });
      const b = evaluator(other.db, { env, settings: { evaluatorId: "b" } });
      for (let i = 0; i < 5; i++) await insertEvent(db, { eventId: `evt_two_${i}`, status: "dead" });
      for (let round = 0; round < 5; round++) await Promise.all([a.tick(), b.tick(), a.tick(), b.tick()]);
      expect(slack.received).toHaveLength(1);
      expect(hook.received).toHaveLength(1);
      expect(json(hook.received[0]!.body).data.count).toBe(5);
      const [n] = await query<{ incidents: number; sent: number }>(
        db,
        sql`select (select count(*)::int from alert_incident) as incidents,
                   (select count(*)::int from alert_delivery where status = 'sent') as sent`,
      );
      expect(n).toEqual({ incidents: 5, sent: 2 });
    } finally {
      await other.close();
    }
  });
});
