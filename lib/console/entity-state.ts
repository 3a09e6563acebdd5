import { sql } from "drizzle-orm";
import { rowsOf, type Db } from "@/db/client";
import { formatMajor, formatMinor } from "@/lib/format/money";

interface StateTable {
  table: string;
  /** The column the entity's id is in. */
  key: string;
  /** A money column and the column naming its currency; `minor`: stored in cents (Stripe), `major`: as text in units. */
  money?: { column: string; currency: string; units: "minor" | "major" };
}

// The business table behind each entity type. A whitelist: table and column names never come from data.
const STATE_TABLES: Record<string, StateTable> = {
  subscription: { table: "subscription", key: "external_id" },
  order: { table: "order", key: "external_id", money: { column: "total_price", currency: "currency", units: "major" } },
  customer: {
    table: "customer_total",
    key: "customer_id",
    money: { column: "amount_paid", currency: "currency", units: "minor" },
  },
};

/** The business table a handler keeps for this entity type; own keys only ("__proto__" is an unknown type). */
export const stateTableOf = (entityType: string): StateTable | undefined =>
  Object.hasOwn(STATE_TABLES, entityType) ? STATE_TABLES[entityType] : undefined;

export const STATE_TYPES = Object.keys(STATE_TABLES);

/** Minor units as the driver hands a bigint over: a number, a bigint, or its text. */
function minorOf(value: unknown): number | bigint | undefined {
  if (typeof value === "bigint" || (typeof value === "number" && Number.isSafeInteger(value))) return value;
  return typeof value === "string" && /^-?\d{1,20}$/.test(value) ? BigInt(value) : undefined;
}

/** A business row as a person reads it: its money in the currency's units with its code ("60.00 USD"), not cents. */
export function presentState(entityType: string, row: Record<string, unknown>): Record<string, unknown> {
  const money = stateTableOf(entityType)?.money;
  const currency = money ? row[money.currency] : undefined;
  if (!money || typeof currency !== "string") return row;
  const value = row[money.column];
  const minor = money.units === "minor" ? minorOf(value) : undefined;
  const text =
    minor !== undefined
      ? formatMinor(minor, currency)
      : money.units === "major" && typeof value === "string"
        ? formatMajor(value, currency)
        : undefined;
  return text === undefined ? row : { ...row, [money.column]: text };
}

/** The business rows kept for one entity now (a customer's totals: one per currency), as a person reads them. */
export async function readEntityStates(
  db: Db,
  k: { source: string; entityType: string; entityId: string },
): Promise<Record<string, unknown>[] | undefined> {
  const st = stateTableOf(k.entityType);
  if (!st) return undefined;
  const rows = rowsOf<Record<string, unknown>>(
    await db.execute(
      sql`select * from ${sql.identifier(st.table)} where source = ${k.source} and ${sql.identifier(st.key)} = ${k.entityId}`,
    ),
  );
  return rows.map((row) => presentState(k.entityType, row));
}
