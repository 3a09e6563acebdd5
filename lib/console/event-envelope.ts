import { and, eq, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { payloadSql } from "@/db/payload";
import { webhookEvent } from "@/db/schema";
import { authorize, type Actor } from "@/lib/roles";
import { EventKeyInput } from "./requeue";

/** One event's payload and stored headers, nothing else: what a page needs to link to the provider's dashboard. */
export async function getEventEnvelope(
  db: Db,
  actor: Actor | undefined,
  input: EventKeyInput,
): Promise<{ payload: unknown; headers: Record<string, string> } | undefined> {
  authorize(actor, "events.read");
  const key = EventKeyInput.parse(input);
  const [row] = await db
    .select({ payload: sql<unknown>`${payloadSql("webhook_event")}`, headers: webhookEvent.headers })
    .from(webhookEvent)
    .where(and(eq(webhookEvent.source, key.source), eq(webhookEvent.eventId, key.eventId)));
  return row;
}
