import { sql } from "drizzle-orm";
import { bigint, check, index, integer, jsonb, pgTable, text, uuid } from "drizzle-orm/pg-core";
import { tstz } from "./columns";

export const SOURCE_STATES = ["active", "paused", "disabled"] as const;
export type SourceState = (typeof SOURCE_STATES)[number];

/** A slug is the URL segment: /api/webhooks/{slug}. */
export const SOURCE_SLUG = /^[a-z0-9][a-z0-9-]{0,62}$/;

/**
 * Mutable: a source (one endpoint) added in the console. Sources declared by the environment or
 * SOURCES_FILE are not rows here (lib/sources/declared.ts): each deploy's own declaration is the truth.
 * Never deleted, only disabled: events keep naming their source by slug.
 */
export const webhookSource = pgTable(
  "webhook_source",
  {
    slug: text("slug").primaryKey(),
    provider: text("provider").notNull(),
    name: text("name").notNull(),
    state: text("state", { enum: SOURCE_STATES }).notNull().default("active"),
    /** null: WEBHOOK_TOLERANCE_SECONDS. */
    toleranceSeconds: integer("tolerance_seconds"),
    /** The provider kind's options (the generic kind's scheme, Standard Webhooks' type field). */
    options: jsonb("options").notNull().default({}),
    createdAt: tstz("created_at").notNull().defaultNow(),
    createdBy: text("created_by").notNull(),
    updatedAt: tstz("updated_at").notNull().defaultNow(),
  },
  (t) => [
    check("webhook_source_state_check", sql`${t.state} in ('active','paused','disabled')`),
    check("webhook_source_slug_check", sql`${t.slug} ~ '^[a-z0-9][a-z0-9-]{0,62}$'`),
  ],
);

/**
 * Mutable: a console source's signing secret, sealed with AES-256-GCM under LEDGER_SECRET_KEY
 * (lib/sources/secret-box.ts). Rotation adds a row and gives the old one an expiry; past it, it no
 * longer verifies. The plaintext is shown once, when it is added; afterwards only the fingerprint.
 */
export const webhookSourceSecret = pgTable(
  "webhook_source_secret",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    source: text("source")
      .notNull()
      .references(() => webhookSource.slug),
    sealed: text("sealed").notNull(),
    fingerprint: text("fingerprint").notNull(),
    createdAt: tstz("created_at").notNull().defaultNow(),
    createdBy: text("created_by").notNull(),
    /** null: verifies until rotated out. */
    expiresAt: tstz("expires_at"),
  },
  (t) => [index("webhook_source_secret_source_idx").on(t.source)],
);

export const REFUSAL_REASONS = [
  "bad_signature",
  "stale_timestamp",
  "not_json",
  "too_large",
  "paused",
  "bad_body",
  "no_identity",
] as const;
export type RefusalReason = (typeof REFUSAL_REASONS)[number];

/**
 * Append-only, bounded (lib/sources/refusals.ts trims it): deliveries a known source refused, as
 * metadata only. Never the body: nothing unverified reaches the ledger (DESIGN.md invariant 2). A row
 * may stand for several refusals alike in one flush (`count`), so a flood of bad signatures is a few
 * rows a second, not one per request.
 */
export const webhookRefusal = pgTable(
  "webhook_refusal",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    source: text("source").notNull(),
    at: tstz("at").notNull().defaultNow(),
    reason: text("reason", { enum: REFUSAL_REASONS }).notNull(),
    /** What the sender was answered ("signature mismatch", "body exceeds 1048576 bytes"). */
    detail: text("detail").notNull(),
    status: integer("status").notNull(),
    /** Body bytes read (or declared, when refused before reading). */
    size: integer("size"),
    remoteAddr: text("remote_addr"),
    /** Which of the provider's signature headers was present (the name, never the value). */
    signatureHeader: text("signature_header"),
    count: integer("count").notNull().default(1),
  },
  (t) => [index("webhook_refusal_source_at_idx").on(t.source, t.at)],
);
