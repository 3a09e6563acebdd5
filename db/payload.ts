import { sql, type SQL } from "drizzle-orm";

/**
 * An event's parsed payload. webhook_event keeps the raw body byte for byte and a jsonb copy only where
 * the two differ (lib/intake/claim.ts: a \u0000 or lone surrogate swapped, an erasure's marker): a second
 * copy of every body was a large share of the table (docs/benchmarks.md). Every reader goes through one of these two.
 */

/** In SQL, for the row aliased `alias`: the stored copy, else the raw body, which the claim proved parses. */
export function payloadSql(alias: string): SQL {
  if (!/^[a-z_][a-z0-9_]*$/.test(alias)) throw new Error(`not an alias: ${alias}`);
  return sql.raw(`coalesce(${alias}.payload, ${alias}.raw_body::jsonb)`);
}

/**
 * In JS, from a row that selected both columns (the worker's lease does: parsing the text here costs what
 * parsing the jsonb's text did, and no server time).
 */
export function payloadOf(row: { payload: unknown; rawBody: string | null }): unknown {
  if (row.payload !== null && row.payload !== undefined) return row.payload;
  return row.rawBody === null ? null : JSON.parse(row.rawBody);
}
