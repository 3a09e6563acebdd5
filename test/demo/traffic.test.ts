import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { rowsOf } from "@/db/client";
import { signDelivery } from "@/lib/demo/sign";
import { demoTraffic } from "@/lib/demo/traffic";
import { receiveWebhook } from "@/lib/receiver/receive";
import { setupTestDb } from "../db";
import { TEST_SECRETS } from "../sign";
import { depsFor } from "../receiver/harness";
import { drain } from "../worker/helpers";

const { db } = setupTestDb();

describe("demo traffic", () => {
  it("[demo] every demo delivery is signed so the real receiver accepts it, duplicates included", async () => {
    const deps = depsFor(db);
    const outcomes: Record<string, number> = {};
    for (const d of demoTraffic()) {
      const headers = signDelivery(d.source, d.body, TEST_SECRETS[d.source], { id: d.id, headers: d.headers });
      const { response, outcome } = await receiveWebhook(
        d.source,
        new Request(`http://demo/api/webhooks/${d.source}`, { method: "POST", headers, body: d.body }),
        deps,
      );
      expect(response.status, `${d.source} ${d.note}`).toBe(200);
      outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
    }
    expect(outcomes.duplicate).toBeGreaterThanOrEqual(4);
    await drain(db);
    const statuses = Object.fromEntries(
      rowsOf<{ status: string; n: number }>(
        await db.execute(sql`select status, count(*)::int as n from webhook_event group by 1`),
      ).map((r) => [r.status, r.n]),
    );
    expect(statuses.dead).toBe(2); // the subscription event with no items, the undated order update
    expect(statuses.settled).toBeGreaterThan(40);
    const stale = rowsOf<{ n: number }>(
      await db.execute(sql`select count(*)::int as n from entity_transition where outcome = 'stale'`),
    );
    expect(stale[0]?.n).toBeGreaterThanOrEqual(5); // 3 reordered Stripe updates + 2 Paddle
  });
});
