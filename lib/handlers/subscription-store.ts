import { sql } from "drizzle-orm";
import { rowsOf, type Tx } from "@/db/client";
import { diff } from "./read";
import type { Changes } from "./types";

export interface SubscriptionState {
  externalId: string;
  customerId: string | null;
  plan: string | null;
  status: string;
}

/**
 * Upsert guarded by version, in one statement that also returns the row as it was (for the timeline's
 * diff). The row moves only to a strictly newer version, so even a write that slipped past the entity
 * guard could not take the subscription backwards. Shared by Stripe and Paddle.
 */
export async function writeSubscription(
  tx: Tx,
  source: "stripe" | "paddle",
  state: SubscriptionState,
  version: number,
  eventId: string,
): Promise<Changes> {
  const [before] = rowsOf<{ customer_id: string | null; plan: string | null; status: string | null; found: boolean }>(
    await tx.execute(sql`
      with old as (
        select customer_id, plan, status from subscription where source = ${source} and external_id = ${state.externalId}
      ), up as (
        insert into subscription (source, external_id, customer_id, plan, status, version, updated_by_event, updated_at)
        values (${source}, ${state.externalId}, ${state.customerId}, ${state.plan}, ${state.status}, ${version}, ${eventId}, now())
        on conflict (source, external_id) do update set customer_id = excluded.customer_id, plan = excluded.plan,
          status = excluded.status, version = excluded.version, updated_by_event = excluded.updated_by_event, updated_at = now()
        where subscription.version <= excluded.version
      )
      select old.customer_id, old.plan, old.status, old.status is not null as found from (select 1) as one left join old on true`),
  );
  const prior = before?.found
    ? { customerId: before.customer_id, plan: before.plan, status: before.status }
    : undefined;
  return diff(prior, { customerId: state.customerId, plan: state.plan, status: state.status }, [
    "customerId",
    "plan",
    "status",
  ]);
}
