import { sql } from "drizzle-orm";
import { rowsOf, type Db } from "@/db/client";
import { receiveWebhook, type ReceiverConfig, type ReceiverDeps } from "@/lib/receiver/receive";
import type { Delivery } from "../sign";
import { testSources } from "../sources";

export function testConfig(over: Partial<ReceiverConfig> = {}): ReceiverConfig {
  return {
    sources: testSources(),
    toleranceSeconds: 300,
    maxBytes: 1024 * 1024,
    maxDepth: 64,
    // These tests judge what is answered: beside the other tiers a claim took past the 2 s default and answered 503.
    // The bound itself has its own tests (test/faults/exhausted, frozen; test/intake/batcher).
    claim: { timeoutMs: 10_000 },
    replayTokens: {},
    claimMode: "enforce",
    ...over,
  };
}

export function depsFor(db: Db, over: Partial<ReceiverConfig> = {}): ReceiverDeps {
  return { getDb: () => Promise.resolve(db), config: testConfig(over) };
}

export function request(source: string, d: Delivery, extra: Record<string, string> = {}): Request {
  return new Request(`http://ledger.test/api/webhooks/${source}`, {
    method: "POST",
    headers: { ...d.headers, ...extra },
    body: d.body,
  });
}

export async function post(deps: ReceiverDeps, source: string, d: Delivery, extra: Record<string, string> = {}) {
  const { response, outcome } = await receiveWebhook(source, request(source, d, extra), deps);
  return { status: response.status, body: (await response.json()) as Record<string, unknown>, outcome };
}

export async function counts(db: Db): Promise<{ events: number; deliveries: number }> {
  const [row] = rowsOf<{ events: number; deliveries: number }>(
    await db.execute(sql`select (select count(*)::int from webhook_event) as events,
                                (select count(*)::int from webhook_delivery) as deliveries`),
  );
  return row ?? { events: -1, deliveries: -1 };
}
