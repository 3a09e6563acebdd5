import { sql } from "drizzle-orm";
import { rowsOf, type Db } from "@/db/client";
import { authorize, type Actor } from "@/lib/roles";

/** The type filter offers this many types at most: a provider sends a few hundred kinds, not thousands. */
export const EVENT_TYPE_LIMIT = 300;

/**
 * The event types the ledger holds, in order, for the events page's type filter: a skip scan of the type
 * index (one probe per type, not a pass over the events), stopped at `limit`.
 */
export async function listEventTypes(db: Db, actor: Actor | undefined, limit = EVENT_TYPE_LIMIT): Promise<string[]> {
  authorize(actor, "events.read");
  const rows = rowsOf<{ event_type: string }>(
    await db.execute(sql`
      with recursive t(event_type) as (
        (select event_type from webhook_event_state order by event_type limit 1)
        union all
        select (select s.event_type from webhook_event_state s where s.event_type > t.event_type
                order by s.event_type limit 1)
        from t where t.event_type is not null
      )
      select event_type from t where event_type is not null limit ${limit}`),
  );
  return rows.map((r) => r.event_type);
}
