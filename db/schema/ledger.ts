import { sql } from "drizzle-orm";
import { ATTEMPT_OUTCOMES, ATTEMPT_TRIGGERS } from "./worker";
import {
  bigint,
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgTable,
  pgView,
  primaryKey,
  text,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import { tstz } from "./columns";

export const EVENT_STATUSES = ["claimed", "processing", "settled", "failed", "dead"] as const;
export type EventStatus = (typeof EVENT_STATUSES)[number];

/** A person's decision on a dead event: done by hand outside the ledger, or needing no work at all. */
export const EVENT_RESOLUTIONS = ["resolved", "ignored"] as const;
export type EventResolution = (typeof EVENT_RESOLUTIONS)[number];

export const EVENT_VIA = ["provider", "replay"] as const;
export type EventVia = (typeof EVENT_VIA)[number];

/**
 * One event is two rows, written by one statement (lib/intake/claim.ts) and deleted together (retention).
 * `webhook_event_body` is what arrived, written once at the claim: the exact bytes, headers, entity, subjects,
 * with the wide indexes (the subject GIN, the entity, the body-hash keys). `webhook_event_state` is where the
 * event is in its lifecycle, rewritten by every lease, settle and failure: a narrow row whose updates do not
 * rewrite the body or insert into its indexes (drizzle/0022_event_state.sql; bench:worker).
 * Readers use the `webhook_event` view of both; writers write the tables.
 */
/** The body's columns: a function, so the table and the view each build their own. */
const bodyColumns = () => ({
  source: text("source").notNull(),
  eventId: text("event_id").notNull(),
  /**
   * The parsed body, stored only where it differs from `raw_body` (a \u0000 or lone surrogate the jsonb type
   * cannot hold, swapped; an erasure's marker). Null means "raw_body::jsonb": the claim proved PostgreSQL
   * parses it. Readers go through db/payload.ts. Rows claimed before 0019 keep their copy.
   */
  payload: jsonb("payload"),
  rawBody: text("raw_body").notNull(),
  headers: jsonb("headers").$type<Record<string, string>>().notNull(),
  entityType: text("entity_type"),
  entityId: text("entity_id"),
  // Microseconds at most (an ISO version, lib/providers/time.ts): below 2^53, so a JS number holds it exactly.
  entityVersion: bigint("entity_version", { mode: "number" }),
  subjectIds: text("subject_ids")
    .array()
    .notNull()
    .default(sql`'{}'::text[]`),
  via: text("via", { enum: EVENT_VIA }).notNull().default("provider"),
  /**
   * What the receiver could not use but stored anyway (a version out of range): said to the worker and
   * the console.
   */
  intakeNote: text("intake_note"),
  /**
   * SHA-256 of the exact raw body. GitHub and Shopify do not sign their delivery-id header: a captured
   * delivery re-sent under a new id is byte-identical, so for them it is a second key (a unique index).
   */
  bodySha256: text("body_sha256"),
  /**
   * The source's provider does not sign its delivery id or type (Provider.unsignedId): (source, body_scope,
   * body_sha256) is then a key too.
   */
  bodyIsKey: boolean("body_is_key"),
  /**
   * The body key's scope: the event type where a provider sends one body under several (Shopify's topics),
   * "" for the whole source (BodyKeyScope). Rows from before 0026 that were keys got their type.
   */
  bodyScope: text("body_scope").notNull().default(""),
  /**
   * The fingerprint of the secret that verified the delivery when it arrived (lib/sources/secret-box.ts):
   * the proof a dispute needs after a rotation, when "verifies with the current secret" no longer says it.
   * Null for replayed events and rows from before it was recorded.
   */
  verifiedWith: text("verified_with"),
  /**
   * Sent by the console's "send a test event", as its signed body says (lib/providers/test-marker.ts): stored and
   * shown like any other event, never applied to business state.
   */
  test: boolean("test").notNull().default(false),
});

/** The state's columns (see bodyColumns). */
const stateColumns = () => ({
  source: text("source").notNull(),
  eventId: text("event_id").notNull(),
  eventType: text("event_type").notNull(),
  receivedAt: tstz("received_at").notNull().defaultNow(),
  status: text("status", { enum: EVENT_STATUSES }).notNull().default("claimed"),
  attempts: integer("attempts").notNull().default(0),
  /** `attempts` when the retry budget last restarted (a requeue gives a fresh WORKER_MAX_ATTEMPTS). */
  attemptsBase: integer("attempts_base").notNull().default(0),
  lastError: text("last_error"),
  settledAt: tstz("settled_at"),
  nextAttemptAt: tstz("next_attempt_at").notNull().defaultNow(),
  leaseToken: uuid("lease_token"),
  leasedAt: tstz("leased_at"),
  leasedBy: text("leased_by"),
  leaseExpiresAt: tstz("lease_expires_at"),
  /** What the next attempt is recorded as: a requeue or replay names itself and who asked. */
  nextTrigger: text("next_trigger", { enum: ATTEMPT_TRIGGERS }).notNull().default("auto"),
  nextActor: text("next_actor"),
  /**
   * The last attempt's outcome, written by the statement that settles, fails or kills the event (so
   * "settled" can say stale, ignored or tie). Null on rows from before it was recorded: read as settled.
   */
  outcome: text("outcome", { enum: ATTEMPT_OUTCOMES }),
  /** A person's decision on a dead event (lib/console/resolve-dead.ts): it then settles without running. */
  resolution: text("resolution", { enum: EVENT_RESOLUTIONS }),
  resolutionNote: text("resolution_note"),
  resolvedBy: text("resolved_by"),
  resolvedAt: tstz("resolved_at"),
});

export const webhookEventBody = pgTable("webhook_event_body", bodyColumns(), (t) => [
  // The claim's lock: whoever inserts it first owns the event.
  primaryKey({ columns: [t.source, t.eventId], name: "webhook_event_body_source_event_id_pk" }),
  // A small pending list (256 kB): a claim adds its ~10 ids to the list instead of descending the tree per id,
  // and the worker merges the list in bulk five times a second (lib/worker/index-merge.ts), so the insert that
  // would cross the limit (and merge the whole list inside its own statement, holding that claim up; 0005) is rare.
  index("webhook_event_subject_ids_idx")
    .using("gin", t.subjectIds)
    .with({ fastupdate: true, gin_pending_list_limit: 256 }),
  index("webhook_event_entity_idx").on(t.source, t.entityType, t.entityId),
  uniqueIndex("webhook_event_body_scope_key_idx")
    .on(t.source, t.bodyScope, t.bodySha256)
    .where(sql`${t.bodyIsKey}`),
  check("webhook_event_via_check", sql`${t.via} in ('provider','replay')`),
  // Test events alone, for the events list's "tests only" (drizzle/0028_test_events.sql): a handful of rows.
  index("webhook_event_test_idx")
    .on(t.source, t.eventId)
    .where(sql`${t.test}`),
]);

/** The mutable half of an event: its lifecycle. `event_type` and `received_at` are copied here for the console's indexes. */
export const webhookEventState = pgTable("webhook_event_state", stateColumns(), (t) => [
  primaryKey({ columns: [t.source, t.eventId], name: "webhook_event_state_source_event_id_pk" }),
  // The worker's scan: sized by the backlog, not by history.
  index("webhook_event_pending_idx")
    .on(t.nextAttemptAt)
    .where(sql`${t.status} in ('claimed', 'failed')`),
  // Leases to take over: as small as the number of events in flight.
  index("webhook_event_lease_idx")
    .on(t.leaseExpiresAt)
    .where(sql`${t.status} = 'processing'`),
  // Ascending on purpose: a backward scan serves `order by received_at desc, event_id desc`.
  index("webhook_event_received_idx").on(t.receivedAt, t.eventId),
  // Console filters that the received index serves badly when the value is rare (bench/console.ts):
  // a rare event type, and every status but settled (counts, backlog, dead list, bulk requeue).
  // event_type trails the status index so "failing most" is an index-only scan.
  index("webhook_event_type_idx").on(t.eventType, t.receivedAt, t.eventId, t.source),
  index("webhook_event_status_idx").on(t.status, t.receivedAt, t.eventId, t.source, t.eventType),
  check("webhook_event_status_check", sql`${t.status} in ('claimed','processing','settled','failed','dead')`),
]);

/**
 * The whole event, as one row: a view of the two tables (state LEFT JOIN body on the key, so a query of
 * lifecycle columns alone never reads the body). Read-only: writers write the two tables, one path each.
 */
export const webhookEvent = pgView("webhook_event", { ...stateColumns(), ...bodyColumns() }).existing();

export type WebhookEvent = typeof webhookEvent.$inferSelect;

/**
 * One row per verified delivery: the first and the latest few duplicates of each event (KEPT_DUPLICATES,
 * lib/intake/claim.ts); a row that replaced older ones counts them in `replaced`. Kept apart from
 * webhook_event so a duplicate storm writes rows instead of contending on one hot row.
 */
export const webhookDelivery = pgTable(
  "webhook_delivery",
  {
    id: bigint("id", { mode: "number" }).generatedAlwaysAsIdentity(),
    source: text("source").notNull(),
    eventId: text("event_id").notNull(),
    receivedAt: tstz("received_at").notNull().defaultNow(),
    via: text("via", { enum: EVENT_VIA }).notNull(),
    /** true for the delivery that inserted the ledger row, false for duplicates. */
    claimed: boolean("claimed").notNull(),
    /** CLAIM_MODE=shadow: this duplicate was processed again (it "would have been skipped"). */
    reprocessed: boolean("reprocessed").notNull().default(false),
    /** Older duplicates of this event this row replaced: the event's deliveries are its rows plus these. */
    replaced: integer("replaced").notNull().default(0),
  },
  (t) => [
    // Keyed by its event (then id, which makes it unique): one b-tree serves every reader by event, 0025.
    primaryKey({ columns: [t.source, t.eventId, t.id], name: "webhook_delivery_pkey" }),
    index("webhook_delivery_received_idx").on(t.receivedAt),
  ],
);

export type WebhookDelivery = typeof webhookDelivery.$inferSelect;
