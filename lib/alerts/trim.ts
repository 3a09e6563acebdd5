import { sql } from "drizzle-orm";
import type { Db } from "@/db/client";

/** How long resolved incidents and finished messages are kept (the console shows the recent ones). */
export const ALERT_KEEP_DAYS = 30;

/** Keeps the alert tables bounded: resolved incidents and finished notifications (with their deliveries) age out. */
export async function trimAlerts(db: Db, keepDays = ALERT_KEEP_DAYS): Promise<void> {
  await db.execute(sql`
    delete from alert_incident
    where state = 'resolved' and resolved_at < now() - make_interval(days => ${keepDays}::int)`);
  await db.execute(sql`
    delete from alert_notification n
    where n.created_at < now() - make_interval(days => ${keepDays}::int)
      and not exists (
        select 1 from alert_delivery d where d.notification_id = n.id and d.status in ('pending', 'sending'))`);
}
