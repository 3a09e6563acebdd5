import { sql, type SQL } from "drizzle-orm";

/**
 * Arrivals counted from webhook_delivery rows. Past an event's fill of duplicate rows the oldest row is rewritten to
 * stand for the new arrivals (lib/intake/claim.ts), so a row is `1 + replaced` arrivals: a reader that counted rows
 * saw a flood as its last ten. Every count of deliveries goes through these two.
 */
const column = (alias: string | undefined, name: string) => {
  if (alias !== undefined && !/^[a-z_][a-z0-9_]*$/.test(alias)) throw new Error(`not an alias: ${alias}`);
  return alias ? `${alias}.${name}` : name;
};

/** Every arrival the rows stand for (an aggregate; 0 over no rows). */
export function arrivalsSql(alias?: string): SQL {
  return sql.raw(`coalesce(sum(1 + ${column(alias, "replaced")}), 0)`);
}

/** The arrivals that were duplicates (an aggregate; 0 over no rows). */
export function duplicateArrivalsSql(alias?: string): SQL {
  return sql.raw(`coalesce(sum(1 + ${column(alias, "replaced")}) filter (where not ${column(alias, "claimed")}), 0)`);
}
