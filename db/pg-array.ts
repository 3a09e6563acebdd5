import { sql, type SQL } from "drizzle-orm";

function item(value: string | number | null): string {
  if (value === null) return "NULL";
  return `"${String(value).replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
}

/**
 * A Postgres array parameter, bound as one text literal and cast. drizzle expands a JS array into a
 * list of parameters, and the two drivers disagree on array binding; a literal works on both.
 */
export function pgArray(
  values: readonly (string | number | null)[],
  type: "text" | "uuid" | "int" | "bigint" | "timestamptz",
): SQL {
  return sql`${`{${values.map(item).join(",")}}`}::${sql.raw(type)}[]`;
}
