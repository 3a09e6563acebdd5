import { sql, type SQL } from "drizzle-orm";

const SPECIAL = /["\\]/;
const SPECIALS = /["\\]/g;

// Most values hold neither a quote nor a backslash: one test, and no copy, for those (a batch binds thousands).
function item(value: string | number | null): string {
  if (value === null) return "NULL";
  const s = typeof value === "string" ? value : String(value);
  return `"${SPECIAL.test(s) ? s.replace(SPECIALS, "\\$&") : s}"`;
}

/** Whether every value can go between quotes as it is: no null, no quote, no backslash. */
function plain(values: readonly (string | number | null)[]): boolean {
  for (const v of values) if (v === null || (typeof v === "string" && SPECIAL.test(v))) return false;
  return true;
}

// The common case is one join, no string per item: a batch's arrays were a tenth of the worker's allocations.
function arrayLiteral(values: readonly (string | number | null)[]): string {
  if (values.length === 0) return "{}";
  return plain(values) ? `{"${values.join('","')}"}` : `{${values.map(item).join(",")}}`;
}

/**
 * A Postgres array parameter, bound as one text literal and cast. drizzle expands a JS array into a
 * list of parameters, and the two drivers disagree on array binding; a literal works on both.
 */
export function pgArray(
  values: readonly (string | number | null)[],
  type: "text" | "uuid" | "int" | "bigint" | "timestamptz" | "tid",
): SQL {
  return sql`${arrayLiteral(values)}::${sql.raw(type)}[]`;
}

type ArrayType = Parameters<typeof pgArray>[1];

/** Several columns as array parameters, comma-separated: the arguments of one `unnest(…)` over a batch. */
export function pgArrays(columns: readonly (readonly [readonly (string | number | null)[], ArrayType])[]): SQL {
  return sql.join(
    columns.map(([values, type]) => pgArray(values, type)),
    sql`, `,
  );
}
