import postgres from "postgres";
import { E2E } from "./env";

/** Direct reads of the e2e database, to check what the app wrote. */
export function e2eSql() {
  return postgres(E2E.databaseUrl, { max: 2, onnotice: () => {} });
}

/** How many of these events are settled: a 200 from the receiver means claimed, not yet applied. */
export async function settledCount(sql: postgres.Sql, eventIds: string[]): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    select count(*)::int as n from webhook_event where event_id in ${sql(eventIds)} and status = 'settled'`;
  return row?.n ?? 0;
}
