import { afterEach, describe, expect, it } from "vitest";
import { getMetrics } from "@/lib/metrics";
import { setupTestDb } from "../db";
import { startFakeApi, stripeRoute, type FakeApi } from "../replay/fake-api";
import { apiConfig, replay, seedLedger, SINCE, STRIPE_KEY, storyEvents, testHost, UNTIL } from "../replay/helpers";
import { parseExposition, valueOf } from "./helpers";

// webhook_replay_events_total counts what each committed page brought: new, duplicate, failed.
const { db } = setupTestDb();
let api: FakeApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

async function replayCounts() {
  const m = parseExposition((await getMetrics().render()).body);
  const of = (result: string) => valueOf(m, "webhook_replay_events_total", { source: "stripe", result }) ?? 0;
  return { new: of("new"), duplicate: of("duplicate"), failed: of("failed") };
}

describe("replay metrics", () => {
  it("[ops] a replay run counts its events by source and result, page by page; a dry run counts nothing", async () => {
    const events = storyEvents(250, "evt_metric_replay");
    await seedLedger(
      db,
      "stripe",
      events.filter((_, i) => i % 10 !== 0),
    );
    api = await startFakeApi(stripeRoute(events, STRIPE_KEY));
    const host = testHost(db, apiConfig({ stripe: api.url }));

    const before = await replayCounts();
    const dry = await replay(host, { source: "stripe", since: SINCE, until: UNTIL, dryRun: true });
    expect(dry).toMatchObject({ status: "succeeded", new: 25 });
    expect(await replayCounts()).toEqual(before);

    const run = await replay(host, { source: "stripe", since: SINCE, until: UNTIL });
    expect(run).toMatchObject({ status: "succeeded", fetched: 250, new: 25, duplicates: 225, failed: 0 });
    const after = await replayCounts();
    expect({
      new: after.new - before.new,
      duplicate: after.duplicate - before.duplicate,
      failed: after.failed - before.failed,
    }).toEqual({ new: 25, duplicate: 225, failed: 0 });
  });
});
