import { sql } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { setupTestDb } from "../db";
import { githubIssuesOpened } from "../fixtures/github";
import { paddleSubscriptionEvent } from "../fixtures/paddle";
import { query } from "../worker/helpers";
import { githubRoute, paddleRoute, startFakeApi, type FakeApi, type GithubDelivery } from "./fake-api";
import { apiConfig, GITHUB_TOKEN, PADDLE_KEY, replay, seedLedger, SINCE, testHost, UNTIL } from "./helpers";

const { db } = setupTestDb();
let api: FakeApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

const at = (minutes: number) => new Date(Date.parse(SINCE) + minutes * 60_000).toISOString().replace(".000Z", "Z");
const guid = (i: number) => `0b9a1c00-${String(i).padStart(4, "0")}-11ef-8f0a-${String(i).padStart(12, "0")}`;

function deliveries(): GithubDelivery[] {
  const out: GithubDelivery[] = [];
  // 250 events in the window (one every ~9.6 s), the last 5 redelivered once; 60 older ones before it.
  for (let i = 0; i < 250; i++)
    out.push({
      id: 90_000 + i,
      guid: guid(i),
      delivered_at: at((i * 40) / 250),
      event: "issues",
      action: "opened",
      payload: githubIssuesOpened({ issueId: 500_000 + i, number: i + 1 }),
    });
  for (let i = 245; i < 250; i++) out.push({ ...out[i]!, id: 95_000 + i, delivered_at: at(39.9), redelivery: true });
  for (let i = 0; i < 60; i++)
    out.push({
      id: 80_000 + i,
      guid: guid(1000 + i),
      delivered_at: at(-10 - i),
      event: "issues",
      action: "opened",
      payload: githubIssuesOpened({ issueId: 600_000 + i }),
    });
  return out;
}

describe("replay from GitHub's hook deliveries API", () => {
  it("[replay] GitHub: pages by Link cursor past since, fetches only missing payloads, claims by guid", async () => {
    const all = deliveries();
    const inWindow = all.filter((d) => d.id < 95_000 && d.id >= 90_000);
    const missing = inWindow.filter((d) => d.id % 10 === 3);
    await seedLedger(
      db,
      "github",
      inWindow.filter((d) => d.id % 10 !== 3).map((d) => ({ ...d.payload, __guid: d.guid })),
      (p) => ({ "x-github-delivery": (p as { __guid: string }).__guid, "x-github-event": "issues" }),
    );
    const { route } = githubRoute(all, GITHUB_TOKEN);
    api = await startFakeApi(route);

    const run = await replay(testHost(db, apiConfig({ github: api.url })), {
      source: "github",
      since: SINCE,
      until: UNTIL,
    });
    expect(run).toMatchObject({
      status: "succeeded",
      fetched: 250,
      new: missing.length,
      duplicates: 250 - missing.length,
      failed: 0,
      pages: 3,
    });

    // Page 1 holds the 5 redeliveries (newest) and 95 originals; redelivered guids are listed once.
    const lists = api.requests.filter((r) => r.path.endsWith("/deliveries"));
    expect(lists.map((r) => [r.query.get("per_page"), r.query.get("cursor")])).toEqual([
      ["100", null],
      ["100", "v1_90155"],
      ["100", "v1_90055"],
    ]);
    expect(
      lists.every(
        (r) =>
          r.headers.authorization === `Bearer ${GITHUB_TOKEN}` && r.headers["x-github-api-version"] === "2022-11-28",
      ),
    ).toBe(true);
    const details = api.requests
      .filter((r) => /\/deliveries\/\d+$/.test(r.path))
      .map((r) => Number(r.path.split("/").pop()));
    expect(details.sort()).toEqual(missing.map((d) => d.id).sort());

    const rows = await query<{
      event_id: string;
      event_type: string;
      entity_type: string;
      delivery: string;
      via: string;
    }>(
      db,
      sql`select event_id, event_type, entity_type, headers->>'x-github-delivery' as delivery, via from webhook_event where via = 'replay' order by event_id`,
    );
    expect(rows.map((r) => r.event_id)).toEqual(missing.map((d) => d.guid).sort());
    expect(
      rows.every((r) => r.event_type === "issues.opened" && r.entity_type === "issue" && r.delivery === r.event_id),
    ).toBe(true);
  });

  it("[replay] GitHub with redeliver: GitHub is asked to deliver each missing event again, and nothing is ingested here", async () => {
    const all = deliveries();
    const inWindow = all.filter((d) => d.id < 95_000 && d.id >= 90_000);
    await seedLedger(
      db,
      "github",
      inWindow.filter((d) => d.id >= 90_010).map((d) => ({ ...d.payload, __guid: d.guid })),
      (p) => ({ "x-github-delivery": (p as { __guid: string }).__guid, "x-github-event": "issues" }),
    );
    const fake = githubRoute(all, GITHUB_TOKEN);
    api = await startFakeApi(fake.route);
    const before = await query(db, sql`select count(*)::int as n from webhook_event`);
    const run = await replay(testHost(db, apiConfig({ github: api.url })), {
      source: "github",
      since: SINCE,
      until: UNTIL,
      githubHook: "Codertocat/Hello-World/109948940",
      githubRedeliver: true,
    });
    expect(run).toMatchObject({
      status: "succeeded",
      fetched: 250,
      new: 10,
      duplicates: 240,
      params: { github: { owner: "Codertocat", repo: "Hello-World", hookId: "109948940", redeliver: true } },
    });
    expect(fake.redelivered.sort()).toEqual(Array.from({ length: 10 }, (_, i) => 90_000 + i));
    expect(await query(db, sql`select count(*)::int as n from webhook_event`)).toEqual(before);
  });
});

describe("replay from Paddle's events API", () => {
  it("[replay] Paddle: events are paged newest first by after=, kept by occurred_at inside the window, and paging stops once past since", async () => {
    const ulid = (i: number) => `evt_01jc${String(i).padStart(22, "0")}`;
    const occurred = (minutes: number) =>
      new Date(Date.parse(SINCE) + minutes * 60_000).toISOString().replace("Z", "123Z");
    const events = [
      ...Array.from({ length: 30 }, (_, i) =>
        paddleSubscriptionEvent({ eventId: ulid(i), occurredAt: occurred(-300 + i) }),
      ), // long before
      ...Array.from({ length: 450 }, (_, i) =>
        paddleSubscriptionEvent({
          eventId: ulid(100 + i),
          occurredAt: occurred((i * 40) / 450),
          subscriptionId: `sub_01jc${String(i).padStart(22, "0")}`,
        }),
      ),
      ...Array.from({ length: 40 }, (_, i) =>
        paddleSubscriptionEvent({ eventId: ulid(1000 + i), occurredAt: occurred(45 + i) }),
      ), // after until
    ];
    const inWindow = events.slice(30, 480);
    await seedLedger(
      db,
      "paddle",
      inWindow.filter((_, i) => i % 9 !== 0),
    );
    const missing = inWindow.filter((_, i) => i % 9 === 0).map((e) => e.event_id);
    api = await startFakeApi(paddleRoute(events, PADDLE_KEY));

    const run = await replay(testHost(db, apiConfig({ paddle: api.url }), { pageSize: 200 }), {
      source: "paddle",
      since: SINCE,
      until: UNTIL,
    });
    expect(run).toMatchObject({
      status: "succeeded",
      fetched: 450,
      new: missing.length,
      duplicates: 450 - missing.length,
      failed: 0,
      pages: 3,
    });
    // 40 newer than until + 160 in the window; then 200 in the window; then the last 90 and the first ones before since.
    expect(api.requests.map((r) => [r.query.get("order_by"), r.query.get("per_page"), r.query.get("after")])).toEqual([
      ["id[DESC]", "200", null],
      ["id[DESC]", "200", ulid(390)],
      ["id[DESC]", "200", ulid(190)],
    ]);
    expect(api.requests[0]?.headers.authorization).toBe(`Bearer ${PADDLE_KEY}`);
    const rows = await query<{ event_id: string; entity_version: string }>(
      db,
      sql`select event_id, entity_version::text from webhook_event where via = 'replay' order by event_id`,
    );
    expect(rows.map((r) => r.event_id)).toEqual(missing.sort());
  });
});
