import { sql } from "drizzle-orm";
import { bigint, boolean, check, index, integer, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { tstz } from "./columns";

export const REPLAY_STATUSES = ["running", "succeeded", "failed", "cancelled"] as const;
export type ReplayStatus = (typeof REPLAY_STATUSES)[number];

export const REPLAY_SOURCES = ["stripe", "github", "paddle"] as const;
export type ReplaySource = (typeof REPLAY_SOURCES)[number];

/** Provider-specific settings of a run (GitHub's hook, redeliver instead of ingest, Stripe's failed-only filter). */
export interface ReplayParams {
  github?: { owner: string; repo: string; hookId: string; redeliver?: boolean };
  stripeFailedOnly?: boolean;
}

/** One event a preview (dry run) would bring in, as the provider's listing names it: the preview's sample. */
export interface ReplaySampleItem {
  eventId: string;
  type?: string;
  /** ISO time the provider gives (created, occurred or delivered). */
  at?: string;
}

/**
 * Mutable: one row per replay (or dry run) of a provider's events API over a window. `cursor` is the
 * next page to fetch; it only moves in the transaction that ingests the page before it and adds its
 * counts, so a killed run resumes without loss or double counting. The lease keeps two processes
 * from driving one run; `running` with an expired lease is a run to resume.
 */
export const replayRun = pgTable(
  "replay_run",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    actor: text("actor").notNull(),
    source: text("source", { enum: REPLAY_SOURCES }).notNull(),
    since: tstz("since").notNull(),
    until: tstz("until").notNull(),
    types: text("types")
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    dryRun: boolean("dry_run").notNull().default(false),
    params: jsonb("params").$type<ReplayParams>().notNull().default({}),
    status: text("status", { enum: REPLAY_STATUSES }).notNull().default("running"),
    fetched: integer("fetched").notNull().default(0),
    new: integer("new").notNull().default(0),
    duplicates: integer("duplicates").notNull().default(0),
    failed: integer("failed").notNull().default(0),
    pages: integer("pages").notNull().default(0),
    /** A dry run's first few would-be-new events, for the console's preview. */
    sample: jsonb("sample").$type<ReplaySampleItem[]>().notNull().default([]),
    cursor: text("cursor"),
    lastError: text("last_error"),
    startedAt: tstz("started_at").notNull().defaultNow(),
    finishedAt: tstz("finished_at"),
    heartbeatAt: tstz("heartbeat_at"),
    leaseOwner: text("lease_owner"),
    leaseExpiresAt: tstz("lease_expires_at"),
  },
  (t) => [
    index("replay_run_started_idx").on(t.startedAt),
    // The resumer's scan: only runs still marked running.
    index("replay_run_running_idx")
      .on(t.leaseExpiresAt)
      .where(sql`${t.status} = 'running'`),
    check("replay_run_status_check", sql`${t.status} in ('running','succeeded','failed','cancelled')`),
    check("replay_run_source_check", sql`${t.source} in ('stripe','github','paddle')`),
  ],
);
export type ReplayRun = typeof replayRun.$inferSelect;
