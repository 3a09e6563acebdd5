import { sql } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { connectDedupCache, type DedupCache } from "@/lib/intake/dedup-cache";
import { setupTestDb } from "../db";
import { startThrowawayRedis } from "../faults/redis";
import { stripeInvoicePaidEvent } from "../fixtures/stripe";
import { startReceiverServer } from "../receiver/http-server";
import { depsFor } from "../receiver/harness";
import { signStripe, TEST_SECRETS } from "../sign";
import { query } from "../worker/helpers";

const { db } = setupTestDb();
const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

const body = (id: string) =>
  JSON.stringify(
    stripeInvoicePaidEvent({ eventId: id, invoiceId: `in_${id}`, customerId: "cus_Storm000001", amount: 100 }),
  );

async function post(url: string, id: string): Promise<{ status: number; duplicate?: boolean }> {
  const d = signStripe(body(id), TEST_SECRETS.stripe);
  const res = await fetch(`${url}/api/webhooks/stripe`, { method: "POST", headers: d.headers, body: d.body });
  const json = (await res.json()) as { duplicate?: boolean };
  return { status: res.status, duplicate: json.duplicate };
}

describe("the Redis short-circuit in front of the ledger", () => {
  it("[dedup-cache] retries answered from Redis once claimed; Redis killed mid-storm, answers stay right", async () => {
    const redis = await startThrowawayRedis();
    cleanup.push(redis.kill);
    // A generous budget: this test is about what is answered, not how fast (a loaded machine misses 5 ms).
    const cache: DedupCache = connectDedupCache({ url: redis.url, ttlSeconds: 60, timeoutMs: 2000 });
    cleanup.push(() => cache.close());
    await expect
      .poll(async () => (cache.mark("probe", "warm-up"), await cache.seen("probe", "warm-up")), { timeout: 5000 })
      .toBe(true);
    const server = await startReceiverServer({ ...depsFor(db), dedup: cache });
    cleanup.push(server.close);

    const ids = Array.from({ length: 20 }, (_, i) => `evt_storm_${i}`);
    const firsts = await Promise.all(ids.map((id) => post(server.url, id)));
    expect(firsts.every((r) => r.status === 200 && r.duplicate === false)).toBe(true);
    // The markers are fire-and-forget: wait until Redis has them all.
    await expect
      .poll(async () => (await Promise.all(ids.map((id) => cache.seen("stripe", id)))).every(Boolean), {
        timeout: 5000,
      })
      .toBe(true);

    // Retries answer duplicate, and a round of them reaches the ledger's delivery log not at all. On a loaded machine a
    // Redis reply past ioredis's 1 s command bound trips the breaker and that round's checks fall back to the ledger
    // (right answers, a delivery row each): a few rounds are allowed for one that Redis answers alone.
    const deliveries = async () =>
      (await query<{ n: number }>(db, sql`select count(*)::int as n from webhook_delivery`))[0]!.n;
    let added = -1;
    for (let round = 0; round < 5 && added !== 0; round++) {
      const before = await deliveries();
      const answers = await Promise.all(ids.flatMap((id) => [post(server.url, id), post(server.url, id)]));
      expect(answers.every((r) => r.status === 200 && r.duplicate === true)).toBe(true);
      added = (await deliveries()) - before;
    }
    expect(added).toBe(0);
    const [{ n: unclaimedBefore }] = (await query(
      db,
      sql`select count(*)::int as n from webhook_delivery where not claimed`,
    )) as [{ n: number }];

    // Redis dies mid-storm: the same retries still answer duplicate, now from the ledger; new events still claim.
    const storm = Promise.all(
      Array.from({ length: 10 }, async (_, round) => {
        const answers = await Promise.all([
          ...ids.map((id) => post(server.url, id)),
          post(server.url, `evt_new_${round}`),
        ]);
        return answers;
      }),
    );
    await redis.kill();
    const rounds = await storm;
    for (const answers of rounds) {
      expect(answers.slice(0, 20).every((r) => r.status === 200 && r.duplicate === true)).toBe(true);
      expect(answers[20]).toEqual({ status: 200, duplicate: false });
    }
    const after = await Promise.all(ids.map((id) => post(server.url, id)));
    expect(after.every((r) => r.status === 200 && r.duplicate === true)).toBe(true);
    expect(await query(db, sql`select count(*)::int as n from webhook_event`)).toEqual([{ n: 30 }]);
    // With Redis gone, retries are recorded by the ledger again.
    const [{ n }] = (await query(db, sql`select count(*)::int as n from webhook_delivery where not claimed`)) as [
      { n: number },
    ];
    expect(n - unclaimedBefore).toBeGreaterThanOrEqual(20);
  });
});
