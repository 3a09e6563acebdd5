import { sql, type SQL } from "drizzle-orm";

const SPECIALS = /["\\]/g;

/** One element, quoted: a quote or backslash escaped, null as NULL. */
function item(value: string | number | null): string {
  if (value === null) return "NULL";
  return `"${String(value).replace(SPECIALS, "\\$&")}"`;
}

const arrayLiteral = (values: readonly (string | number | null)[]): string => `{${values.map(item).join(",")}}`;

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
