import { sql } from "drizzle-orm";
import {
  bigint,
  check,
  foreignKey,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import { tstz } from "./columns";
import { webhookEventBody } from "./ledger";

export const DESTINATION_STATES = ["active", "paused", "disabled"] as const;
export type DestinationState = (typeof DESTINATION_STATES)[number];
/** every: each matching event once; newest: only what moves an entity forward, in order per entity. */
export const FORWARD_MODES = ["every", "newest"] as const;
export type ForwardMode = (typeof FORWARD_MODES)[number];
/** standard: a signed JSON envelope (Standard Webhooks); provider: the provider's own body and headers, re-signed. */
export const FORWARD_FORMATS = ["standard", "provider"] as const;
export type ForwardFormat = (typeof FORWARD_FORMATS)[number];

/** A destination's name is its handle in URLs and the DESTINATIONS_FILE: as a source slug. */
export const DESTINATION_NAME = /^[a-z0-9][a-z0-9-]{0,62}$/;

/**
 * A team's endpoint that verified events are forwarded to. Declared ones (DESTINATIONS_FILE) are written here at
 * start-up with their secret's variable name (`secret_env`), so the forwarder and the console read one table;
 * console ones keep sealed secrets in forward_destination_secret. The breaker columns are the forwarder's own.
 */
export const forwardDestination = pgTable(
  "forward_destination",
  {
    name: text("name").primaryKey(),
    url: text("url").notNull(),
    state: text("state", { enum: DESTINATION_STATES }).notNull().default("active"),
    mode: text("mode", { enum: FORWARD_MODES }).notNull().default("every"),
    format: text("format", { enum: FORWARD_FORMATS }).notNull().default("standard"),
    /** Source slugs; null: every source. */
    sources: text("sources").array(),
    /** Event types, exact or with `*`; null: every type. */
    types: text("types").array(),
    maxInFlight: integer("max_in_flight").notNull().default(10),
    timeoutMs: integer("timeout_ms").notNull().default(5000),
    /** Deliveries per second at most; null: no rate. */
    ratePerSecond: integer("rate_per_second"),
    maxAttempts: integer("max_attempts").notNull().default(10),
    /** "file": declared in DESTINATIONS_FILE (read-only in the console but for pause and resume); "console". */
    origin: text("origin").notNull().default("console"),
    /** Declared destinations: the variable holding the secrets (comma-separated, newest last). */
    secretEnv: text("secret_env"),
    /** Failed attempts in a row; the breaker opens at FORWARD_BREAKER_FAILURES. */
    failuresInRow: integer("failures_in_row").notNull().default(0),
    /** While set and in the future, the breaker is open: nothing is sent but one probe once it passes. */
    breakerUntil: tstz("breaker_until"),
    breakerOpenings: integer("breaker_openings").notNull().default(0),
    createdAt: tstz("created_at").notNull().defaultNow(),
    updatedAt: tstz("updated_at").notNull().defaultNow(),
  },
  (t) => [
    check("forward_destination_name_check", sql`${t.name} ~ '^[a-z0-9][a-z0-9-]{0,62}$'`),
    check("forward_destination_state_check", sql`${t.state} in ('active','paused','disabled')`),
  ],
);

/** A console destination's signing secret, sealed as source secrets are (lib/sources/secret-box.ts). */
export const forwardDestinationSecret = pgTable(
  "forward_destination_secret",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    destination: text("destination")
      .notNull()
      .references(() => forwardDestination.name, { onDelete: "cascade" }),
    sealed: text("sealed").notNull(),
    fingerprint: text("fingerprint").notNull(),
    createdAt: tstz("created_at").notNull().defaultNow(),
    /** null: signs until rotated out. */
    expiresAt: tstz("expires_at"),
  },
  (t) => [index("forward_destination_secret_destination_idx").on(t.destination)],
);

export const FORWARD_STATUSES = ["pending", "sending", "failed", "sent", "dead", "superseded", "stale", "tie"] as const;
export type ForwardStatus = (typeof FORWARD_STATUSES)[number];

/**
 * The outbox: one row per (destination, event), written in the transaction that settles the event, so a forward is
 * never lost and never invented. `stale` and `tie` rows are never sent (newest mode said no); `superseded` ones
 * were overtaken by a newer state of their entity before they were sent. Deleted with their event.
 */
export const forward = pgTable(
  "forward",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    destination: text("destination")
      .notNull()
      .references(() => forwardDestination.name, { onDelete: "cascade" }),
    source: text("source").notNull(),
    eventId: text("event_id").notNull(),
    /** newest mode: source, entity type and id, joined; null: no order to keep. */
    entityKey: text("entity_key"),
    entityVersion: bigint("entity_version", { mode: "number" }),
    status: text("status", { enum: FORWARD_STATUSES }).notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: tstz("next_attempt_at").notNull().defaultNow(),
    leaseToken: uuid("lease_token"),
    leaseExpiresAt: tstz("lease_expires_at"),
    createdAt: tstz("created_at").notNull().defaultNow(),
    sentAt: tstz("sent_at"),
    lastError: text("last_error"),
    lastStatus: integer("last_status"),
  },
  (t) => [
    foreignKey({
      name: "forward_event_fk",
      columns: [t.source, t.eventId],
      foreignColumns: [webhookEventBody.source, webhookEventBody.eventId],
    }).onDelete("cascade"),
    uniqueIndex("forward_destination_event_idx").on(t.destination, t.source, t.eventId),
    index("forward_event_idx").on(t.source, t.eventId),
    index("forward_due_idx")
      .on(t.destination, t.nextAttemptAt)
      .where(sql`${t.status} in ('pending','failed','sending')`),
    // The lease's count of requests in flight: without it, a scan of every forward ever sent on each lease.
    index("forward_sending_idx")
      .on(t.destination, t.leaseExpiresAt)
      .where(sql`${t.status} = 'sending'`),
    index("forward_entity_idx")
      .on(t.destination, t.entityKey)
      .where(sql`${t.entityKey} is not null and ${t.status} in ('pending','failed','sending','dead')`),
  ],
);

/** Append-only: every attempt to send a forward, with what the destination answered (bounded). */
export const forwardAttempt = pgTable(
  "forward_attempt",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    forwardId: bigint("forward_id", { mode: "number" })
      .notNull()
      .references(() => forward.id, { onDelete: "cascade" }),
    destination: text("destination").notNull(),
    number: integer("number").notNull(),
    startedAt: tstz("started_at").notNull(),
    durationMs: integer("duration_ms").notNull(),
    statusCode: integer("status_code"),
    /** The first bytes of the response body, as text; null after an erasure. */
    responseExcerpt: text("response_excerpt"),
    error: text("error"),
  },
  (t) => [
    index("forward_attempt_forward_idx").on(t.forwardId),
    index("forward_attempt_destination_idx").on(t.destination, t.startedAt),
  ],
);

/** newest mode's guard, per destination: the newest version queued for each entity. */
export const forwardEntity = pgTable(
  "forward_entity",
  {
    destination: text("destination")
      .notNull()
      .references(() => forwardDestination.name, { onDelete: "cascade" }),
    entityKey: text("entity_key").notNull(),
    version: bigint("version", { mode: "number" }).notNull(),
    eventId: text("event_id").notNull(),
  },
  (t) => [primaryKey({ columns: [t.destination, t.entityKey], name: "forward_entity_pk" })],
);
