import { sql } from "drizzle-orm";
import { bigint, check, index, integer, jsonb, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { tstz } from "./columns";

export const ATTEMPT_TRIGGERS = ["auto", "requeue", "replay", "process-now"] as const;
export type AttemptTrigger = (typeof ATTEMPT_TRIGGERS)[number];

/** "tie": an equal version that neither chain evidence nor the provider's API could order (settled, kept visible). */
export const ATTEMPT_OUTCOMES = ["settled", "failed", "stale", "ignored", "tie"] as const;
export type AttemptOutcome = (typeof ATTEMPT_OUTCOMES)[number];

export const TRANSITION_OUTCOMES = ["applied", "stale", "tie"] as const;

/** Whether retrying a failed attempt can help: a missing field cannot come back, a dropped connection can. */
export const ERROR_KINDS = ["permanent", "transient"] as const;
export type ErrorKind = (typeof ERROR_KINDS)[number];

/** A path into a payload: object keys and array indexes from its root. */
export type PayloadPath = readonly (string | number)[];

/** What a handler found wrong at a payload path. */
export const INPUT_PROBLEMS = ["missing", "not-an-object", "not-an-integer", "not-a-date", "wrong-object"] as const;
export type InputProblem = (typeof INPUT_PROBLEMS)[number];

/**
 * Where a handler's input error is, for the console to open and highlight: `path` from the payload's root, or null
 * when the value was not in the payload (the provider API's answer to a tie).
 */
export interface InputErrorDetail {
  path: PayloadPath | null;
  problem: InputProblem;
}

/** How an equal version (a tie) was ordered: by the events' own chain evidence, by the provider's API, by a person. */
export const TIE_RESOLUTIONS = ["chain", "provider-time", "provider-api", "by-hand"] as const;
export type TieResolution = (typeof TIE_RESOLUTIONS)[number];
export type TransitionOutcome = (typeof TRANSITION_OUTCOMES)[number];

/** Append-only: one row per processing attempt of an event, whatever started it and however it ended. */
export const webhookAttempt = pgTable(
  "webhook_attempt",
  {
    id: bigint("id", { mode: "number" }).generatedAlwaysAsIdentity(),
    source: text("source").notNull(),
    eventId: text("event_id").notNull(),
    number: integer("number").notNull(),
    trigger: text("trigger", { enum: ATTEMPT_TRIGGERS }).notNull(),
    actor: text("actor").notNull(),
    startedAt: tstz("started_at").notNull(),
    finishedAt: tstz("finished_at").notNull(),
    outcome: text("outcome", { enum: ATTEMPT_OUTCOMES }).notNull(),
    error: text("error"),
    /** Failed attempts only: permanent goes dead at once, transient backs off. */
    errorKind: text("error_kind", { enum: ERROR_KINDS }),
    /** A handler's input error: the payload path and what is wrong there (lib/handlers/types.ts), for the console. */
    errorDetail: jsonb("error_detail").$type<InputErrorDetail>(),
  },
  (t) => [
    // Keyed by its event, the only way it is read (then number and id, which make it unique): one b-tree, 0024.
    primaryKey({ columns: [t.source, t.eventId, t.number, t.id], name: "webhook_attempt_pkey" }),
    check("webhook_attempt_trigger_check", sql`${t.trigger} in ('auto','requeue','replay','process-now')`),
    check("webhook_attempt_outcome_check", sql`${t.outcome} in ('settled','failed','stale','ignored','tie')`),
  ],
);
export type WebhookAttempt = typeof webhookAttempt.$inferSelect;

/** Mutable: the newest version applied per entity. The guard every snapshot write goes through. */
export const entityVersion = pgTable(
  "entity_version",
  {
    source: text("source").notNull(),
    entityType: text("entity_type").notNull(),
    entityId: text("entity_id").notNull(),
    version: bigint("version", { mode: "number" }).notNull(),
    eventId: text("event_id").notNull(),
    updatedAt: tstz("updated_at").notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.source, t.entityType, t.entityId] })],
);
export type EntityVersion = typeof entityVersion.$inferSelect;

/** Append-only timeline: one row per event that tried to move an entity, applied or stale. */
export const entityTransition = pgTable(
  "entity_transition",
  {
    id: bigint("id", { mode: "number" }).generatedAlwaysAsIdentity(),
    source: text("source").notNull(),
    entityType: text("entity_type").notNull(),
    entityId: text("entity_id").notNull(),
    eventId: text("event_id").notNull(),
    version: bigint("version", { mode: "number" }),
    outcome: text("outcome", { enum: TRANSITION_OUTCOMES }).notNull(),
    /** `{ field: { from, to } }` for applied events; empty for stale ones, whose `note` says why (older, or a tie). */
    changes: jsonb("changes").$type<Record<string, { from: unknown; to: unknown }>>().notNull(),
    note: text("note"),
    /** The version and event applied before this one was weighed (read under the entity's lock). */
    priorVersion: bigint("prior_version", { mode: "number" }),
    priorEventId: text("prior_event_id"),
    /** For equal versions: how the order was decided; null when it was not a tie or stayed one. */
    resolution: text("resolution", { enum: TIE_RESOLUTIONS }),
    recordedAt: tstz("recorded_at").notNull().defaultNow(),
  },
  (t) => [
    // Keyed by its entity, the timeline's order (then id, which makes it unique): one b-tree, 0024.
    primaryKey({ columns: [t.source, t.entityType, t.entityId, t.id], name: "entity_transition_pkey" }),
    index("entity_transition_event_idx").on(t.source, t.eventId),
    // The ties a person has to decide: a handful among millions of rows (the overview lists them).
    index("entity_transition_tie_idx")
      .on(t.recordedAt)
      .where(sql`${t.outcome} = 'tie'`),
  ],
);
export type EntityTransition = typeof entityTransition.$inferSelect;
