import { index, pgTable, primaryKey, text } from "drizzle-orm/pg-core";

/** What a search term is, as the events list says it matched ("customer id", "email", "name", …). */
export const TERM_FIELDS = [
  "event id",
  "customer id",
  "subscription id",
  "invoice id",
  "email",
  "name",
  "login",
  "id",
] as const;
export type TermField = (typeof TERM_FIELDS)[number];

/**
 * The search directory (lib/ledger/subject-terms.ts): one row per lower-cased text a person may type the start
 * of, and the subject it finds in webhook_event.subject_ids. Ids and emails map to themselves, a customer's name
 * (and each later word of it) to the customer's id. Written by the worker when an event's attempt ends, never by
 * the claim; rows are only added, except by erasure. `term` is COLLATE "C" (set in the migration: drizzle-kit
 * cannot say it), so the primary key serves `term >= $p and term < $p || U+10FFFF` as a range, whatever the
 * database's collation.
 */
export const subjectTerm = pgTable(
  "subject_term",
  {
    term: text("term").notNull(),
    subject: text("subject").notNull(),
    field: text("field", { enum: TERM_FIELDS }).notNull(),
    /** As the payload wrote it ("Jenny Rosen"): what the row shows as the match. */
    value: text("value").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.term, t.subject] }),
    // Erasure deletes a subject's terms by subject.
    index("subject_term_subject_idx").on(t.subject),
  ],
);
export type SubjectTerm = typeof subjectTerm.$inferSelect;
