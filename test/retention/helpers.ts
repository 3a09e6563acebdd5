import { sql } from "drizzle-orm";
import { rowsOf, type Db } from "@/db/client";
import type { RetentionSettings } from "@/lib/retention/settings";
import { stripeSubscriptionEvent } from "@/test/fixtures/stripe";
import { depsFor, post } from "../receiver/harness";
import { signStripe, TEST_SECRETS } from "../sign";

export const settings = (over: Partial<RetentionSettings> = {}): RetentionSettings => ({
  retentionDays: 90,
  tombstoneDays: 400,
  replayDays: 90,
  auditDays: 365,
  batchSize: 3,
  pauseMs: 0,
  dutyPercent: 100,
  snapshotWaitMs: 2000,
  ...over,
});

/** A signed Stripe subscription delivery through the real receiver; returns its body (for a retry). */
export async function deliverStripe(
  db: Db,
  eventId: string,
  over: { customerId?: string; subscriptionId?: string } = {},
) {
  const body = JSON.stringify(
    stripeSubscriptionEvent({
      eventId,
      subscriptionId: over.subscriptionId ?? `sub_1${eventId.replace(/\W/g, "")}X`,
      customerId: over.customerId,
      created: 1_712_917_129 + Number(eventId.replace(/\D/g, "") || 0),
    }),
  );
  const res = await post(depsFor(db), "stripe", signStripe(body, TEST_SECRETS.stripe));
  return { body, res };
}

/** Moves events (and what hangs off them) `days` into the past, as if they had arrived then. */
export async function age(db: Db, days: number, eventIds?: string[]) {
  const which = eventIds
    ? sql`event_id in (${sql.join(
        eventIds.map((id) => sql`${id}`),
        sql`, `,
      )})`
    : sql`true`;
  const back = sql`${`${days} days`}::interval`;
  await db.execute(
    sql`update webhook_event_state set received_at = received_at - ${back}, settled_at = settled_at - ${back} where ${which}`,
  );
  await db.execute(sql`update webhook_delivery set received_at = received_at - ${back} where ${which}`);
}

export async function tableCounts(db: Db) {
  const [row] = rowsOf<Record<string, number>>(
    await db.execute(sql`select (select count(*)::int from webhook_event) as events,
      (select count(*)::int from webhook_delivery) as deliveries, (select count(*)::int from webhook_attempt) as attempts,
      (select count(*)::int from entity_transition) as transitions, (select count(*)::int from webhook_tombstone) as tombstones`),
  );
  return row!;
}
