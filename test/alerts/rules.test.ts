import { sql } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { describeChannels, alertChannelsFromEnv, maskUrl } from "@/lib/alerts/channels";
import { resetAlertRule, setAlertRule } from "@/lib/alerts/manage";
import { getAlertsOverview, listAlertDeliveries, listAlertIncidents } from "@/lib/alerts/queries";
import { defaultRules } from "@/lib/alerts/rules";
import { PermissionError } from "@/lib/roles";
import { setupTestDb } from "../db";
import { makeUser } from "../auth/helpers";
import { evaluator, fakeChannel, insertEvent, query, SECRET, type FakeChannel } from "./helpers";
import { seedEvents } from "@/test/seed-events";

const { db } = setupTestDb();

const servers: FakeChannel[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
async function slackServer() {
  const s = await fakeChannel();
  servers.push(s);
  return s;
}
const texts = (s: FakeChannel) => s.received.map((r) => (JSON.parse(r.body) as { text: string }).text);

async function incidents() {
  return query<{ rule: string; subject: string; state: string }>(
    db,
    sql`select rule, subject, state from alert_incident order by id`,
  );
}

describe("alerts: backlog, refusals and silence", () => {
  it("[alerts] backlog older than N minutes fires once and resolves when the oldest due event is taken", async () => {
    const slack = await slackServer();
    const ev = evaluator(db, { env: { ALERT_SLACK_WEBHOOK_URL: slack.url, ALERT_BACKLOG_MINUTES: 10 } });
    await insertEvent(db, { eventId: "evt_old", status: "failed", attempts: 2, dueMinutesAgo: 25 });
    await insertEvent(db, { eventId: "evt_new", status: "claimed", attempts: 0, dueMinutesAgo: 1 });
    // A failed event waiting for its backoff is not overdue: next_attempt_at in the future.
    await seedEvents(
      db,
      "source, event_id, event_type, payload, raw_body, headers, status, next_attempt_at",
      sql`
      values ('stripe', 'evt_later', 'invoice.paid', '{}'::jsonb, '{}', '{}'::jsonb, 'failed', now() + interval '1 hour')`,
    );
    await ev.tick();
    expect(await incidents()).toEqual([{ rule: "backlog_age", subject: "backlog", state: "firing" }]);
    expect(texts(slack)[0]).toMatch(
      /oldest event \(stripe\/evt_old\) has been due for 25 min \(threshold 10 min\); 2 events due/,
    );
    await ev.tick();
    expect(slack.received).toHaveLength(1);

    await db.execute(sql`update webhook_event_state set status = 'settled' where event_id = 'evt_old'`);
    await ev.tick();
    expect(await incidents()).toEqual([{ rule: "backlog_age", subject: "backlog", state: "resolved" }]);
    expect(texts(slack)[1]).toContain("Resolved: the oldest due event has waited 1 min");
  });

  it("[alerts] a backlog hovering at its threshold stays one incident: it resolves only after staying clear for ALERT_RESOLVE_AFTER_MINUTES", async () => {
    const slack = await slackServer();
    const ev = evaluator(db, {
      env: { ALERT_SLACK_WEBHOOK_URL: slack.url, ALERT_BACKLOG_MINUTES: 10 },
      settings: { resolveAfterMs: 5 * 60_000 },
    });
    const clearSince = async () =>
      (await query<{ c: boolean }>(db, sql`select clear_since is not null as c from alert_incident`)).map((r) => r.c);
    await insertEvent(db, { eventId: "evt_a", status: "failed", attempts: 2, dueMinutesAgo: 12 });
    await ev.tick();
    expect(await incidents()).toEqual([{ rule: "backlog_age", subject: "backlog", state: "firing" }]);

    // Clear: still firing, clearing; nothing sent.
    await db.execute(sql`update webhook_event_state set status = 'settled' where event_id = 'evt_a'`);
    await ev.tick();
    expect(await incidents()).toEqual([{ rule: "backlog_age", subject: "backlog", state: "firing" }]);
    expect(await clearSince()).toEqual([true]);
    const [listed] = await listAlertIncidents({ db, actor: await makeUser(db, "support") });
    expect(listed?.clearSince).toBeInstanceOf(Date);

    // Over the threshold again within the delay: the same incident, no longer clearing; still one message.
    await insertEvent(db, { eventId: "evt_b", status: "failed", attempts: 2, dueMinutesAgo: 11 });
    await ev.tick();
    expect(await incidents()).toEqual([{ rule: "backlog_age", subject: "backlog", state: "firing" }]);
    expect(await clearSince()).toEqual([false]);

    // Clear again, then clear for longer than the delay (the clock moved back rather than waited for).
    await db.execute(sql`update webhook_event_state set status = 'settled' where event_id = 'evt_b'`);
    await ev.tick();
    expect(await incidents()).toEqual([{ rule: "backlog_age", subject: "backlog", state: "firing" }]);
    await db.execute(sql`update alert_incident set clear_since = clear_since - interval '4 minutes'`);
    await ev.tick();
    expect((await incidents())[0]?.state).toBe("firing");
    await db.execute(sql`update alert_incident set clear_since = clear_since - interval '2 minutes'`);
    await ev.tick();
    expect(await incidents()).toEqual([{ rule: "backlog_age", subject: "backlog", state: "resolved" }]);
    expect(texts(slack)).toHaveLength(2);
    expect(texts(slack)[1]).toContain("Resolved: the backlog is empty");
  });

  it("[alerts] refusals above N per 10 minutes fire per source (counts summed) and resolve when they age out", async () => {
    const slack = await slackServer();
    const ev = evaluator(db, { env: { ALERT_SLACK_WEBHOOK_URL: slack.url, ALERT_REFUSALS_PER_10_MINUTES: 100 } });
    await db.execute(sql`
      insert into webhook_refusal (source, reason, detail, status, count, at) values
        ('stripe', 'bad_signature', 'signature mismatch', 401, 90, now() - interval '2 minutes'),
        ('stripe', 'stale_timestamp', 'too old', 401, 15, now()),
        ('stripe', 'bad_signature', 'signature mismatch', 401, 500, now() - interval '30 minutes'),
        ('github', 'bad_signature', 'signature mismatch', 401, 100, now())`);
    await ev.tick();
    expect(await incidents()).toEqual([{ rule: "refusal_rate", subject: "stripe", state: "firing" }]);
    expect(texts(slack)[0]).toBe(
      ":rotating_light: stripe refused 105 deliveries in 10 minutes (threshold 100): bad signature 90, stale timestamp 15",
    );
    await ev.tick();
    expect(slack.received).toHaveLength(1);

    await db.execute(sql`update webhook_refusal set at = at - interval '20 minutes' where source = 'stripe'`);
    await ev.tick();
    expect(await incidents()).toEqual([{ rule: "refusal_rate", subject: "stripe", state: "resolved" }]);
    expect(texts(slack)[1]).toContain("Resolved: stripe refused 0 deliveries in the last 10 minutes");
  });

  it("[alerts] a source silent for more than N hours fires, a paused one does not, and a delivery resolves it", async () => {
    const slack = await slackServer();
    const sources = [
      { slug: "stripe", state: "active" as const },
      { slug: "shop", state: "active" as const },
      { slug: "github", state: "paused" as const },
      { slug: "paddle", state: "active" as const },
    ];
    const ev = evaluator(db, { env: { ALERT_SLACK_WEBHOOK_URL: slack.url, ALERT_SILENT_HOURS: 2 }, sources });
    await db.execute(sql`
      insert into webhook_delivery (source, event_id, via, claimed, received_at) values
        ('stripe', 'evt_a', 'provider', true, now() - interval '3 hours'),
        ('paddle', 'evt_b', 'provider', true, now() - interval '10 minutes')`);
    await ev.tick();
    // stripe's last delivery is 3 h old; shop had none in the 2 h the first scan read; github is paused.
    expect(await incidents()).toEqual([
      { rule: "source_silent", subject: "stripe", state: "firing" },
      { rule: "source_silent", subject: "shop", state: "firing" },
    ]);
    expect(slack.received).toHaveLength(1);
    expect(texts(slack)[0]).toContain("2 sources have had no delivery for more than 2 hours");

    await db.execute(sql`
      insert into webhook_delivery (source, event_id, via, claimed) values ('stripe', 'evt_c', 'provider', true)`);
    await ev.tick();
    const now = await incidents();
    expect(now.find((i) => i.subject === "stripe")?.state).toBe("resolved");
    expect(now.find((i) => i.subject === "shop")?.state).toBe("firing");
    expect(texts(slack)[1]).toMatch(/^:white_check_mark: Resolved: stripe received a delivery at /);
  });

  it("[alerts] a source added after the first scan gets its threshold's time before it counts as silent", async () => {
    const sources = [{ slug: "stripe", state: "active" as const }];
    const ev = evaluator(db, { env: { ALERT_SILENT_HOURS: 1 }, sources });
    await db.execute(
      sql`insert into webhook_delivery (source, event_id, via, claimed) values ('stripe', 'e', 'provider', true)`,
    );
    await ev.tick();
    sources.push({ slug: "newcomer", state: "active" });
    await ev.tick();
    expect(await incidents()).toEqual([]);
    await db.execute(
      sql`update alert_source_activity set first_seen_at = now() - interval '61 minutes' where source = 'newcomer'`,
    );
    await ev.tick();
    expect(await incidents()).toEqual([{ rule: "source_silent", subject: "newcomer", state: "firing" }]);
  });

  it("[alerts] turning a rule off closes its incidents without a message", async () => {
    const slack = await slackServer();
    const admin = await makeUser(db, "admin");
    const ev = evaluator(db, { env: { ALERT_SLACK_WEBHOOK_URL: slack.url } });
    await insertEvent(db, { eventId: "evt_off", status: "dead" });
    await ev.tick();
    await setAlertRule({ db, actor: admin, input: { rule: "dead_event", enabled: false } });
    await ev.tick();
    expect(slack.received).toHaveLength(1);
    const [row] = await query<{ state: string; resolution: string }>(
      db,
      sql`select state, resolution from alert_incident`,
    );
    expect(row).toEqual({ state: "resolved", resolution: "the rule was turned off" });
  });
});

describe("alerts: the console's rules, channels and lists", () => {
  it("[alerts] an admin sets a rule (audited), support may only read, and reset returns to the deploy's default", async () => {
    const admin = await makeUser(db, "admin");
    const support = await makeUser(db, "support");
    const ops = await makeUser(db, "ops");
    const config = {
      channels: alertChannelsFromEnv({}),
      defaults: defaultRules({ ALERT_BACKLOG_MINUTES: 30 }),
      evaluateMs: 15_000,
    };
    const before = await getAlertsOverview({ db, actor: support, config });
    expect(before.rules.find((r) => r.rule === "backlog_age")).toMatchObject({
      enabled: true,
      threshold: 30,
      origin: { kind: "default" },
    });

    await expect(
      setAlertRule({ db, actor: ops, input: { rule: "backlog_age", enabled: true, threshold: 5 } }),
    ).rejects.toBeInstanceOf(PermissionError);
    await expect(
      setAlertRule({ db, actor: admin, input: { rule: "backlog_age", enabled: true, threshold: 0 } }),
    ).rejects.toThrow("between 1 and 10,080 minutes");
    await setAlertRule({ db, actor: admin, input: { rule: "backlog_age", enabled: true, threshold: 5 } });
    const after = await getAlertsOverview({ db, actor: support, config });
    expect(after.rules.find((r) => r.rule === "backlog_age")).toMatchObject({
      enabled: true,
      threshold: 5,
      origin: { kind: "console", by: "admin@example.com" },
    });

    await resetAlertRule({ db, actor: admin, input: { rule: "backlog_age" } });
    const reset = await getAlertsOverview({ db, actor: support, config });
    expect(reset.rules.find((r) => r.rule === "backlog_age")).toMatchObject({
      threshold: 30,
      origin: { kind: "default" },
    });

    const audit = await query<{ action: string; result: string; actor_email: string }>(
      db,
      sql`select action, result, actor_email from audit_log order by id`,
    );
    expect(audit).toEqual([
      { action: "alerts.set-rule", result: "refused", actor_email: "ops@example.com" },
      { action: "alerts.set-rule", result: "error", actor_email: "admin@example.com" },
      { action: "alerts.set-rule", result: "ok", actor_email: "admin@example.com" },
      { action: "alerts.reset-rule", result: "ok", actor_email: "admin@example.com" },
    ]);
    await expect(getAlertsOverview({ db, actor: undefined, config })).rejects.toBeInstanceOf(PermissionError);
  });

  it("[alerts] channels are shown masked: never the URL's token or the secret", async () => {
    const slackUrl = "https://hooks.slack.com/services/T0AAAAAAA/B0BBBBBBB/abcdefghijklmnopqrstuvwx";
    const views = describeChannels(
      alertChannelsFromEnv({
        ALERT_SLACK_WEBHOOK_URL: slackUrl,
        ALERT_WEBHOOK_URL: "https://alerts.example.com/in?token=hunter2hunter2",
        ALERT_WEBHOOK_SECRET: SECRET,
      }),
    );
    const text = JSON.stringify(views);
    expect(text).not.toContain("T0AAAAAAA");
    expect(text).not.toContain("hunter2");
    expect(text).not.toContain(SECRET.slice(6));
    expect(views[0]).toMatchObject({ configured: true, target: "https://hooks.slack.com/…uvwx" });
    expect(views[1]).toMatchObject({ configured: true, secretFingerprint: expect.stringMatching(/^fp_[0-9a-f]{12}$/) });
    expect(maskUrl("http://127.0.0.1:9/")).toBe("http://127.0.0.1:9");
    const half = describeChannels(alertChannelsFromEnv({ ALERT_WEBHOOK_URL: "https://alerts.example.com/in" }));
    expect(half[1]).toMatchObject({
      configured: false,
      problem: expect.stringContaining("without ALERT_WEBHOOK_SECRET"),
    });
  });

  it("[alerts] support lists incidents and deliveries, newest first", async () => {
    const slack = await slackServer();
    const support = await makeUser(db, "support");
    await insertEvent(db, { eventId: "evt_list", status: "dead" });
    await evaluator(db, { env: { ALERT_SLACK_WEBHOOK_URL: slack.url } }).tick();
    const inc = await listAlertIncidents({ db, actor: support });
    expect(inc).toMatchObject([{ rule: "dead_event", subject: "stripe/evt_list", state: "firing" }]);
    const del = await listAlertDeliveries({ db, actor: support });
    expect(del).toMatchObject([{ channel: "slack", status: "sent", attempts: 1, kind: "firing", rule: "dead_event" }]);
  });
});
