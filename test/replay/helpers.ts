import { sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { describeDelivery } from "@/lib/intake/describe";
import { claimEvents } from "@/lib/intake/claim";
import { driveReplayRun, type ReplayHost } from "@/lib/replay/drive";
import { createReplayRunAs, type ReplayInput } from "@/lib/replay/runs";
import type { ReplayApiConfig } from "@/lib/replay/types";
import type { ProviderKind } from "@/lib/providers";
import { stripeInvoicePaidEvent } from "@/test/fixtures/stripe";

export const STRIPE_KEY = "sk_test_51ReplayKeyThatMustNeverBeLogged";
export const GITHUB_TOKEN = "ghp_ReplayTokenThatMustNeverBeLogged";
export const PADDLE_KEY = "pdl_sdbx_apikey_ReplayKeyThatMustNeverBeLogged";

export function apiConfig(urls: { stripe?: string; github?: string; paddle?: string }): ReplayApiConfig {
  return {
    stripe: { base: urls.stripe ?? "http://127.0.0.1:9", key: STRIPE_KEY },
    github: {
      base: urls.github ?? "http://127.0.0.1:9",
      token: GITHUB_TOKEN,
      hook: "Codertocat/Hello-World/109948940",
    },
    paddle: { base: urls.paddle ?? "http://127.0.0.1:9", key: PADDLE_KEY },
  };
}

/** A host whose waits are recorded and cut to a millisecond, so retry tests run fast. */
export function testHost(
  db: Db,
  config: ReplayApiConfig,
  over: Partial<ReplayHost> & { owner?: string } = {},
): ReplayHost & { waits: number[] } {
  const waits: number[] = [];
  return {
    db,
    config,
    lease: { owner: over.owner ?? "test-host", leaseMs: 30_000 },
    http: {
      attempts: 4,
      backoffMs: (n) => 100 * 2 ** (n - 1),
      sleep: (ms) => {
        waits.push(ms);
        return new Promise((r) => setTimeout(r, 1));
      },
      timeoutMs: 5_000,
    },
    waits,
    ...over,
  };
}

export async function replay(host: ReplayHost, input: ReplayInput, signal?: AbortSignal) {
  const run = await createReplayRunAs({
    db: host.db,
    who: "cli:test",
    input,
    lease: host.lease,
    defaultHook: host.config.github.hook,
  });
  return driveReplayRun(run, host, signal);
}

export const SINCE = "2026-11-01T10:00:00Z";
export const UNTIL = "2026-11-01T10:40:00Z";
const since = Date.parse(SINCE) / 1000;

/** n invoice.paid events for one customer, spread over the 40-minute window, 2000 cents each. */
export function storyEvents(n: number, prefix = "evt_story") {
  return Array.from({ length: n }, (_, i) =>
    stripeInvoicePaidEvent({
      eventId: `${prefix}_${String(i).padStart(5, "0")}`,
      invoiceId: `in_story${String(i).padStart(8, "0")}`,
      customerId: "cus_StoryCustomer1",
      created: since + Math.floor((i * 2400) / n),
    }),
  );
}

/** Events the ledger already has, claimed as deliveries and settled (as if processed long ago). */
export async function seedLedger(
  db: Db,
  source: ProviderKind,
  payloads: readonly unknown[],
  headersOf: (p: unknown) => Record<string, string> = () => ({}),
) {
  for (let i = 0; i < payloads.length; i += 50)
    await Promise.all(
      payloads.slice(i, i + 50).map(async (payload) => {
        const d = describeDelivery({
          source: { slug: source, provider: source },
          payload,
          rawBody: JSON.stringify(payload),
          headers: new Headers(headersOf(payload)),
          via: "provider",
        });
        if (!d.ok) throw new Error(d.reason);
        await claimEvents(db, [d.claim]);
      }),
    );
  await db.execute(sql`update webhook_event_state set status = 'settled', settled_at = now() where status = 'claimed'`);
}
