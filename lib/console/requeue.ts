import { and, eq, inArray, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "@/db/client";
import { webhookEvent, webhookEventState } from "@/db/schema";
import { audited } from "@/lib/audit/audited";
import type { Actor } from "@/lib/roles";
import { SOURCE_SLUG } from "@/db/schema/sources";
import { leaseOne } from "@/lib/ledger/lease";
import { processLeased, type ProcessContext, type Processed } from "@/lib/ledger/process";
import { ConflictError, NotFoundError } from "@/lib/ledger/types";

export const EventKeyInput = z.object({ source: z.string().regex(SOURCE_SLUG), eventId: z.string().min(1).max(255) });
export type EventKeyInput = z.infer<typeof EventKeyInput>;

async function explainMiss(db: Db, key: EventKeyInput, wanted: string): Promise<never> {
  const [row] = await db
    .select({ status: webhookEvent.status })
    .from(webhookEvent)
    .where(and(eq(webhookEvent.source, key.source), eq(webhookEvent.eventId, key.eventId)));
  if (!row) throw new NotFoundError(`no ${key.source} event ${key.eventId}`);
  throw new ConflictError(`event ${key.eventId} is ${row.status}; ${wanted}`);
}

/**
 * failed or dead → claimed and due now, with a fresh attempt budget (ops). The attempt history stays;
 * the next attempt is recorded as a requeue by the actor, and the audit row commits with the change.
 */
export async function requeueEvent({
  db,
  actor,
  input,
}: {
  db: Db;
  actor: Actor | undefined;
  input: EventKeyInput;
}): Promise<{ status: "claimed" }> {
  const key = EventKeyInput.parse(input);
  return audited(
    db,
    actor,
    "events.requeue",
    { action: "events.requeue", target: `event:${key.source}/${key.eventId}` },
    async (tx, who) => {
      const rows = await tx
        .update(webhookEventState)
        .set({
          status: "claimed",
          nextAttemptAt: sql`now()`,
          nextTrigger: "requeue",
          nextActor: who.email,
          attemptsBase: sql`${webhookEventState.attempts}`,
        })
        .where(
          and(
            eq(webhookEventState.source, key.source),
            eq(webhookEventState.eventId, key.eventId),
            inArray(webhookEventState.status, ["failed", "dead"]),
          ),
        )
        .returning({ status: webhookEventState.status });
      if (rows.length === 0) return explainMiss(tx, key, "only failed or dead events can be requeued");
      return { status: "claimed" as const };
    },
  );
}

/** Lease and process one event right now (claimed, failed or dead), recorded as process-now by the actor (ops). */
export async function processEventNow({
  db,
  actor,
  input,
  ctx,
}: {
  db: Db;
  actor: Actor | undefined;
  input: EventKeyInput;
  ctx: ProcessContext & { workerId: string; leaseMs: number };
}): Promise<Processed> {
  const key = EventKeyInput.parse(input);
  const leased = await audited(
    db,
    actor,
    "events.process-now",
    { action: "events.process-now", target: `event:${key.source}/${key.eventId}` },
    async (tx, who) => {
      const lease = await leaseOne(tx, key, {
        workerId: ctx.workerId,
        leaseMs: ctx.leaseMs,
        statuses: ["claimed", "failed", "dead"],
        trigger: "process-now",
        actor: who.email,
      });
      return lease ?? explainMiss(tx, key, "only claimed, failed or dead events can be processed now");
    },
  );
  const [result] = await processLeased(db, [leased], ctx);
  if (!result) throw new Error("processing returned no result");
  return result;
}
