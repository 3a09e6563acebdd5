import { sql } from "drizzle-orm";
import { check, index, integer, pgSequence, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { tstz } from "./columns";

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

/**
 * Advanced by an erasure before it deletes directory rows: a worker that skips rows it knows are there
 * (lib/ledger/term-cache.ts) reads it with each insert, and sends them again when it has moved.
 */
export const subjectTermEpoch = pgSequence("subject_term_epoch");

/**
 * Deliveries per minute and source, folded from webhook_delivery by the console's read (lib/ledger/delivery-rollup.ts)
 * once a minute is closed: the overview's chart reads a day as 1,440 rows a source, however busy the day was.
 * Rows are replaced whole (a refold recounts the minute); those older than the rollup's horizon are deleted.
 */
export const deliveryMinute = pgTable(
  "delivery_minute",
  {
    minute: tstz("minute").notNull(),
    source: text("source").notNull(),
    deliveries: integer("deliveries").notNull(),
    duplicates: integer("duplicates").notNull(),
  },
  (t) => [primaryKey({ columns: [t.minute, t.source] })],
);

/** One row (id 1): the span [folded_from, folded_to) of whole minutes that delivery_minute holds. */
export const deliveryRollup = pgTable(
  "delivery_rollup",
  {
    id: integer("id").primaryKey(),
    foldedFrom: tstz("folded_from").notNull(),
    foldedTo: tstz("folded_to").notNull(),
  },
  (t) => [check("delivery_rollup_one_row", sql`${t.id} = 1`)],
);
