import { sql } from "drizzle-orm";
import { bigint, boolean, check, index, integer, jsonb, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { tstz } from "./columns";

export const ALERT_RULES = [
  "dead_event",
  "backlog_age",
  "refusal_rate",
  "source_silent",
  "destination_failing",
] as const;
export type AlertRule = (typeof ALERT_RULES)[number];

export const INCIDENT_STATES = ["firing", "resolved"] as const;
export type IncidentState = (typeof INCIDENT_STATES)[number];

export const NOTIFICATION_KINDS = ["firing", "resolved"] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

export const ALERT_CHANNELS = ["slack", "webhook"] as const;
export type AlertChannel = (typeof ALERT_CHANNELS)[number];

export const ALERT_DELIVERY_STATUSES = ["pending", "sending", "sent", "failed"] as const;
export type AlertDeliveryStatus = (typeof ALERT_DELIVERY_STATUSES)[number];

/**
 * Mutable: a rule as an admin set it in the console. No row: the deploy's default (lib/alerts/rules.ts,
 * from the environment). Deleting the row goes back to that default.
 */
export const alertRule = pgTable(
  "alert_rule",
  {
    rule: text("rule", { enum: ALERT_RULES }).primaryKey(),
    enabled: boolean("enabled").notNull(),
    /** Minutes, refusals per 10 minutes or hours, by rule; null for dead_event (no threshold). */
    threshold: integer("threshold"),
    updatedAt: tstz("updated_at").notNull().defaultNow(),
    updatedBy: text("updated_by").notNull(),
  },
  (t) => [
    check(
      "alert_rule_rule_check",
      sql`${t.rule} in ('dead_event','backlog_age','refusal_rate','source_silent','destination_failing')`,
    ),
  ],
);
export type AlertRuleRow = typeof alertRule.$inferSelect;

/**
 * Mutable (firing → resolved, once; clear_since while it may be resolving): one condition of one rule on one subject (a dead event, a source, the
 * backlog). At most one firing row per (rule, subject): the unique index is what makes an alert fire once.
 */
export const alertIncident = pgTable(
  "alert_incident",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    rule: text("rule", { enum: ALERT_RULES }).notNull(),
    /** "stripe/evt_1" for a dead event, the slug for a source rule, "backlog" for the backlog. */
    subject: text("subject").notNull(),
    source: text("source"),
    eventId: text("event_id"),
    state: text("state", { enum: INCIDENT_STATES }).notNull().default("firing"),
    summary: text("summary").notNull(),
    /** What the message lists about it (event type, attempts, counts), never a payload. */
    detail: jsonb("detail").$type<Record<string, unknown>>().notNull().default({}),
    openedAt: tstz("opened_at").notNull().defaultNow(),
    /**
     * Firing, but its condition has not held since then: it resolves once it has stayed clear for
     * ALERT_RESOLVE_AFTER_MINUTES, and goes back to null if the condition returns (no second alert).
     */
    clearSince: tstz("clear_since"),
    resolvedAt: tstz("resolved_at"),
    resolution: text("resolution"),
  },
  (t) => [
    uniqueIndex("alert_incident_firing_idx")
      .on(t.rule, t.subject)
      .where(sql`${t.state} = 'firing'`),
    index("alert_incident_opened_idx").on(t.openedAt),
    check("alert_incident_state_check", sql`${t.state} in ('firing','resolved')`),
  ],
);
export type AlertIncident = typeof alertIncident.$inferSelect;

/**
 * Append-only: one message about one rule's incidents opened (or resolved) in one evaluation: a burst of
 * 500 dead events is one notification listing the first few and the count. `payload` is what every channel
 * renders (lib/alerts/render.ts).
 */
export const alertNotification = pgTable(
  "alert_notification",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    rule: text("rule", { enum: ALERT_RULES }).notNull(),
    kind: text("kind", { enum: NOTIFICATION_KINDS }).notNull(),
    summary: text("summary").notNull(),
    incidentIds: bigint("incident_ids", { mode: "number" })
      .array()
      .notNull()
      .default(sql`'{}'::bigint[]`),
    payload: jsonb("payload").$type<Record<string, unknown>>().notNull(),
    createdAt: tstz("created_at").notNull().defaultNow(),
  },
  (t) => [
    index("alert_notification_created_idx").on(t.createdAt),
    check("alert_notification_kind_check", sql`${t.kind} in ('firing','resolved')`),
  ],
);
export type AlertNotification = typeof alertNotification.$inferSelect;

/**
 * Mutable, the outbox: one notification to one channel. Leased (`sending`, a token and an expiry) while a
 * request is out, so two evaluators never send it both; a failure goes back to `pending` with a later
 * `next_attempt_at`, and `failed` after the last attempt.
 */
export const alertDelivery = pgTable(
  "alert_delivery",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    notificationId: bigint("notification_id", { mode: "number" })
      .notNull()
      .references(() => alertNotification.id, { onDelete: "cascade" }),
    channel: text("channel", { enum: ALERT_CHANNELS }).notNull(),
    status: text("status", { enum: ALERT_DELIVERY_STATUSES }).notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: tstz("next_attempt_at").notNull().defaultNow(),
    leaseToken: uuid("lease_token"),
    leaseExpiresAt: tstz("lease_expires_at"),
    /** The channel's HTTP status on the last attempt (its body is never kept). */
    lastStatus: integer("last_status"),
    lastError: text("last_error"),
    createdAt: tstz("created_at").notNull().defaultNow(),
    sentAt: tstz("sent_at"),
  },
  (t) => [
    index("alert_delivery_due_idx")
      .on(t.nextAttemptAt)
      .where(sql`${t.status} in ('pending', 'sending')`),
    index("alert_delivery_notification_idx").on(t.notificationId),
    check("alert_delivery_status_check", sql`${t.status} in ('pending','sending','sent','failed')`),
    check("alert_delivery_channel_check", sql`${t.channel} in ('slack','webhook')`),
  ],
);
export type AlertDelivery = typeof alertDelivery.$inferSelect;

/** Mutable, one row: the last evaluation (who, when, how it went) and how far deliveries have been scanned. */
export const alertEvaluator = pgTable(
  "alert_evaluator",
  {
    id: integer("id").primaryKey().default(1),
    lastRunAt: tstz("last_run_at"),
    lastRunBy: text("last_run_by"),
    lastError: text("last_error"),
    /** webhook_delivery rows received before this were folded into alert_source_activity. */
    deliveriesScannedTo: tstz("deliveries_scanned_to"),
  },
  (t) => [check("alert_evaluator_one_row", sql`${t.id} = 1`)],
);

/**
 * Mutable: each source's last delivery as the evaluator has seen it (scanned incrementally from
 * webhook_delivery, which has no index by source and time). `first_seen_at`: silent since then, at least.
 */
export const alertSourceActivity = pgTable("alert_source_activity", {
  source: text("source").primaryKey(),
  lastDeliveryAt: tstz("last_delivery_at"),
  firstSeenAt: tstz("first_seen_at").notNull().defaultNow(),
});
