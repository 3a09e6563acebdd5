import { sql } from "drizzle-orm";
import { bigint, boolean, check, customType, index, integer, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { tstz } from "./columns";

const bytea = customType<{ data: Buffer; driverData: Buffer }>({ dataType: () => "bytea" });

/**
 * What is left of a settled event once retention pruned it (lib/retention/prune.ts): its key, when it arrived
 * and the SHA-256 of its raw body, tens of bytes instead of kilobytes. The claim (lib/intake/claim.ts) checks it
 * in the same statement, so a very late retry or a replay after retention is still a duplicate. Append-only;
 * rows older than TOMBSTONE_DAYS are deleted.
 */
export const webhookTombstone = pgTable(
  "webhook_tombstone",
  {
    source: text("source").notNull(),
    eventId: text("event_id").notNull(),
    receivedAt: tstz("received_at").notNull(),
    /** The 32 bytes of webhook_event.body_sha256 (hex there); null for rows from before it existed. */
    bodySha256: bytea("body_sha256"),
    /** The body's hash was a second key of the event (unsigned delivery ids: GitHub, Shopify, …). */
    bodyKey: boolean("body_key").notNull().default(false),
    /** That key's scope (webhook_event_body.body_scope); "" is the whole source, as for tombstones before 0026. */
    bodyScope: text("body_scope").notNull().default(""),
  },
  (t) => [
    primaryKey({ columns: [t.source, t.eventId] }),
    index("webhook_tombstone_body_idx")
      .on(t.source, t.bodySha256)
      .where(sql`${t.bodyKey}`),
    // Tombstones arrive roughly in received order (pruning walks oldest first): a block range index is enough.
    index("webhook_tombstone_received_idx").using("brin", t.receivedAt),
  ],
);
export type WebhookTombstone = typeof webhookTombstone.$inferSelect;

export const RETENTION_RUN_STATUSES = ["running", "succeeded", "failed", "cancelled"] as const;
export type RetentionRunStatus = (typeof RETENTION_RUN_STATUSES)[number];

/**
 * Mutable while it runs: one row per retention run (scheduled in the worker, or `npm run prune`), its counts
 * updated after every batch, so the console shows what the last one did and how long it took.
 */
export const retentionRun = pgTable(
  "retention_run",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    actor: text("actor").notNull(),
    status: text("status", { enum: RETENTION_RUN_STATUSES }).notNull().default("running"),
    startedAt: tstz("started_at").notNull().defaultNow(),
    heartbeatAt: tstz("heartbeat_at").notNull().defaultNow(),
    finishedAt: tstz("finished_at"),
    /** Settled events received before this were pruned. */
    eventsBefore: tstz("events_before").notNull(),
    tombstonesBefore: tstz("tombstones_before").notNull(),
    events: integer("events").notNull().default(0),
    deliveries: integer("deliveries").notNull().default(0),
    attempts: integer("attempts").notNull().default(0),
    transitions: integer("transitions").notNull().default(0),
    tombstones: integer("tombstones").notNull().default(0),
    replayRuns: integer("replay_runs").notNull().default(0),
    auditRows: integer("audit_rows").notNull().default(0),
    batches: integer("batches").notNull().default(0),
    error: text("error"),
  },
  (t) => [
    index("retention_run_started_idx").on(t.startedAt),
    check("retention_run_status_check", sql`${t.status} in ('running','succeeded','failed','cancelled')`),
  ],
);
export type RetentionRun = typeof retentionRun.$inferSelect;
