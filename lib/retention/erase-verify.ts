import { sql, type SQL } from "drizzle-orm";
import { rowsOf, type Tx } from "@/db/client";
import { bodyMentionsSql, keysRelation, mentionsSql, type MentionMatcher, type StoredEventKey } from "@/db/mentions";

/** A place that still holds the subject after an erasure, and how many of its rows do. */
export interface RemainingCopy {
  place: string;
  rows: number;
}

/** "audit_log (1 row), subject_term (2 rows)": where copies remain, for a message or the audit row's error. */
export const remainingWords = (remaining: readonly RemainingCopy[]): string =>
  remaining.map((c) => `${c.place} (${c.rows.toLocaleString("en")} row${c.rows === 1 ? "" : "s"})`).join(", ");

/**
 * Every stored copy the ledger keeps, read again after the redaction, in its transaction: the erased events'
 * bodies, states, attempts and timeline rows, any event the search index still names, the search directory, and
 * the audit log (which erasure does not rewrite: a row quoting the subject is reported, not hidden). Business
 * tables are the handlers' (the README says erasure leaves them). Empty: nothing stored holds it.
 */
export async function remainingCopies(
  tx: Tx,
  subject: string,
  m: MentionMatcher,
  keys: readonly StoredEventKey[],
): Promise<RemainingCopy[]> {
  const has = (column: string) => mentionsSql(sql.raw(column), m);
  const ofKeys = (table: string, alias: string, where: SQL) =>
    sql`(select count(*)::int from ${keysRelation(keys)}
         join ${sql.identifier(table)} ${sql.raw(alias)} on ${sql.raw(alias)}.source = k.source
           and ${sql.raw(alias)}.event_id = k.event_id
         where ${where})`;
  const [row] = rowsOf<Record<string, number>>(
    await tx.execute(sql`
      select ${ofKeys("webhook_event_body", "b", sql`${bodyMentionsSql(m)} or ${has("b.intake_note")} or ${has("b.entity_id")}`)}
               + (select count(*)::int from webhook_event_body where subject_ids @> array[${subject}]::text[])
               as webhook_event_body,
             ${ofKeys("webhook_event_state", "s", sql`${has("s.last_error")} or ${has("s.resolution_note")}`)}
               as webhook_event_state,
             ${ofKeys("webhook_attempt", "a", has("a.error"))} as webhook_attempt,
             ${ofKeys("entity_transition", "t", sql`${has("t.changes::text")} or ${has("t.note")} or ${has("t.entity_id")}`)}
               as entity_transition,
             (select count(*)::int from subject_term t
              where ${has("t.term")} or ${has("t.subject")} or ${has("t.value")})
               as subject_term,
             (select count(*)::int from audit_log l
              where ${has("l.target")} or ${has("l.detail::text")} or ${has("l.error")}) as audit_log`),
  );
  return Object.entries(row ?? {})
    .filter(([, rows]) => rows > 0)
    .map(([place, rows]) => ({ place, rows }));
}
