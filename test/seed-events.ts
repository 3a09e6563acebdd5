import { getTableColumns, sql, type SQL, type Table } from "drizzle-orm";
import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import type { Db, Tx } from "@/db/client";
import { webhookEventBody, webhookEventState } from "@/db/schema";

const namesOf = (table: Table) => Object.values(getTableColumns(table)).map((c) => c.name);
const BODY = namesOf(webhookEventBody);
const STATE = namesOf(webhookEventState);
/** Every column of an event, for a copy of whole rows. */
export const EVENT_COLUMNS = [...new Set([...BODY, ...STATE])].join(", ");

const list = (names: readonly string[]) => sql.raw(names.join(", "));

/**
 * Seeds ledger events for tests, e2e specs and bench seeds, written as the claim writes them: a body row and a
 * state row each. `rows` is a VALUES list or a SELECT of `columns` (the `webhook_event` view's names, as in an
 * insert's column list), e.g.
 * `seedEvents(db, "source, event_id, event_type, raw_body, headers", sql\`values ('stripe', …)\`)`.
 * The rows are staged in a temp table of the view's types (so a literal such as '{}' takes its column's type, as in
 * a plain insert) and copied to the two tables in key order; columns left out take the tables' defaults.
 */
export async function seedEvents(db: Db | Tx, columns: string, rows: SQL): Promise<void> {
  const names = columns.split(",").map((c) => c.trim());
  const unknown = names.filter((c) => !BODY.includes(c) && !STATE.includes(c));
  if (unknown.length > 0) throw new Error(`seedEvents: ${unknown.join(", ")} is no column of an event`);
  const body = BODY.filter((c) => names.includes(c));
  const state = STATE.filter((c) => names.includes(c));
  await db.transaction(async (tx) => {
    await tx.execute(sql`create temp table seed_event (like webhook_event)`);
    await tx.execute(sql`insert into seed_event (${list(names)}) ${rows}`);
    await tx.execute(sql`
      insert into webhook_event_body (${list(body)})
      select ${list(body)} from seed_event order by source, event_id`);
    await tx.execute(sql`
      insert into webhook_event_state (${list(state)})
      select ${list(state)} from seed_event order by source, event_id`);
    await tx.execute(sql`drop table seed_event`);
  });
}

/**
 * seedEvents on a connection of its own to `url`, for callers that hold a postgres.js client: drizzle replaces the
 * date parsers of a client it is given, which would change what that client's own reads return.
 */
export async function seedEventsAt(url: string, columns: string, rows: SQL): Promise<void> {
  const client = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await seedEvents(drizzle(client) as unknown as Db, columns, rows);
  } finally {
    await client.end({ timeout: 5 });
  }
}
