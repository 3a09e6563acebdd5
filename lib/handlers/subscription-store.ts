import { and, eq, sql } from "drizzle-orm";
import type { Tx } from "@/db/client";
import { subscription } from "@/db/schema";
import { diff } from "./read";
import type { Changes } from "./types";

export interface SubscriptionState {
  externalId: string;
  customerId: string | null;
  plan: string | null;
  status: string;
}

const FIELDS = ["customerId", "plan", "status"] as const;

/**
 * Upsert guarded by version: the row moves only to a strictly newer version, so even a write that
 * slipped past the entity guard could not take the subscription backwards. Shared by Stripe and Paddle.
 */
export async function writeSubscription(tx: Tx, source: "stripe" | "paddle", state: SubscriptionState, version: number, eventId: string): Promise<Changes> {
  const key = and(eq(subscription.source, source), eq(subscription.externalId, state.externalId));
  const [before] = await tx.select().from(subscription).where(key);
  const row = { source, ...state, version, updatedByEvent: eventId, updatedAt: new Date() };
  await tx
    .insert(subscription)
    .values(row)
    .onConflictDoUpdate({
      target: [subscription.source, subscription.externalId],
      set: { customerId: row.customerId, plan: row.plan, status: row.status, version, updatedByEvent: eventId, updatedAt: row.updatedAt },
      setWhere: sql`${subscription.version} < excluded.version`,
    });
  return diff(before, row, FIELDS);
}
