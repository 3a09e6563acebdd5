import { sql } from "drizzle-orm";
import { rowsOf, type Db } from "@/db/client";
import { handlerLookup, type HandlerLookup } from "@/lib/handlers/registry";
import { claimOne } from "@/test/claim";
import { leaseDue } from "@/lib/ledger/lease";
import { extractSubjectIds } from "@/lib/ledger/subjects";
import { processLeased, type Processed } from "@/lib/ledger/process";
import { PROVIDERS, type Source } from "@/lib/providers";
import type { WorkerSettings } from "@/lib/worker/settings";

export function testSettings(over: Partial<WorkerSettings> = {}): WorkerSettings {
  return {
    workerId: "test-worker",
    concurrency: 1,
    batchSize: 50,
    leaseMs: 30_000,
    pollMs: 20,
    policy: { maxAttempts: 3, backoffBaseMs: 1, backoffMaxMs: 5 },
    handlers: handlerLookup(),
    ...over,
  };
}

/** Claims a payload as the receiver would (describe + ingest), skipping only the signature. */
export async function claim(db: Db, source: Source, payload: unknown, headers: Record<string, string> = {}): Promise<boolean> {
  const h = new Headers(headers);
  const described = PROVIDERS[source].describe(payload, h);
  if (!described.ok) throw new Error(described.reason);
  const { eventId, eventType, entity } = described.event;
  const { claimed } = await claimOne(db, { source, eventId, eventType, rawBody: JSON.stringify(payload), headers, entityType: entity?.type, entityId: entity?.id, entityVersion: entity?.version, subjectIds: extractSubjectIds(payload) });
  return claimed;
}

/** Leases and processes until nothing is due (failed events with backoff are waited for). */
export async function drain(db: Db, settings = testSettings(), opts: { handlers?: HandlerLookup; maxRounds?: number } = {}): Promise<Processed[]> {
  const all: Processed[] = [];
  const ctx = { policy: settings.policy, handlers: opts.handlers ?? settings.handlers };
  for (let round = 0; round < (opts.maxRounds ?? 1000); round++) {
    const batch = await leaseDue(db, { workerId: settings.workerId, leaseMs: settings.leaseMs, limit: settings.batchSize });
    if (batch.length === 0) {
      const [pending] = rowsOf<{ n: number }>(await db.execute(sql`select count(*)::int as n from webhook_event where status in ('claimed','failed')`));
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
