import { sql } from "drizzle-orm";
import { rowsOf, type Db } from "@/db/client";
import { handlerLookup, type HandlerLookup } from "@/lib/handlers/registry";
import { defineDeltaHandler } from "@/lib/handlers/types";
import { claimEvents } from "@/lib/intake/claim";
import { describeDelivery } from "@/lib/intake/describe";
import { leaseDue } from "@/lib/ledger/lease";
import { processLeased, type Processed } from "@/lib/ledger/process";
import type { ProviderKind } from "@/lib/providers";
import type { WorkerSettings } from "@/lib/worker/settings";

export function testSettings(over: Partial<WorkerSettings> = {}): WorkerSettings {
  return {
    workerId: "test-worker",
    concurrency: 1,
    batchSize: 50,
    leaseMs: 30_000,
    pollMs: 20,
    statementTimeoutMs: 30_000,
    policy: { maxAttempts: 3, backoffBaseMs: 1, backoffMaxMs: 5 },
    handlers: handlerLookup(),
    ...over,
  };
}

/** Claims a payload as the receiver would (the edge's describe, then the claim), skipping only the signature. */
export async function claim(
  db: Db,
  source: ProviderKind,
  payload: unknown,
  headers: Record<string, string> = {},
): Promise<boolean> {
  const described = describeDelivery({
    source: { slug: source, provider: source },
    payload,
    rawBody: JSON.stringify(payload),
    headers: new Headers(headers),
    via: "provider",
  });
  if (!described.ok) throw new Error(described.reason);
  const [result] = await claimEvents(db, [described.claim]);
  return result!.claimed;
}

/** Leases and processes until nothing is due (failed events with backoff are waited for). */
export async function drain(
  db: Db,
  settings = testSettings(),
  opts: { handlers?: HandlerLookup; maxRounds?: number } = {},
): Promise<Processed[]> {
  const all: Processed[] = [];
  const ctx = {
    policy: settings.policy,
    handlers: opts.handlers ?? settings.handlers,
    providerApi: settings.providerApi,
  };
  for (let round = 0; round < (opts.maxRounds ?? 1000); round++) {
    const batch = await leaseDue(db, {
      workerId: settings.workerId,
      leaseMs: settings.leaseMs,
      limit: settings.batchSize,
    });
    if (batch.length === 0) {
      const [pending] = rowsOf<{ n: number }>(
        await db.execute(sql`select count(*)::int as n from webhook_event where status in ('claimed','failed')`),
      );
      if (!pending?.n) return all;
      await new Promise((r) => setTimeout(r, 10));
      continue;
    }
    all.push(...(await processLeased(db, batch, ctx)));
  }
  throw new Error("drain did not finish");
}

export async function query<T>(db: Db, q: ReturnType<typeof sql>): Promise<T[]> {
  return rowsOf<T>(await db.execute(q));
}

/** Polls `check` until it holds; throws past `timeoutMs`. */
export async function waitFor(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Stripe `invoice.paid` handlers whose apply holds the named event (every event if none is named) until
 * `release()`: a batch in hand for as long as a test needs. `held()` counts the applies waiting or released.
 */
export function heldHandlers(heldEventId?: string): {
  handlers: HandlerLookup;
  held: () => number;
  release: () => void;
} {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let held = 0;
  const handlers = handlerLookup([
    defineDeltaHandler<string>({
      source: "stripe",
      types: ["invoice.paid"],
      read: ({ eventId }) => ({ entity: { type: "customer", id: eventId }, input: eventId }),
      async apply(_tx, eventId) {
        if (heldEventId === undefined || eventId === heldEventId) {
          held++;
          await gate;
        }
        return {};
      },
    }),
  ]);
  return { handlers, held: () => held, release };
}
