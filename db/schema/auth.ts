import { sql } from "drizzle-orm";
import { bigint, boolean, check, index, integer, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { tstz } from "./columns";

/** Console roles, least to most powerful: support reads, ops also acts on events, admin also manages users. */
export const ROLES = ["support", "ops", "admin"] as const;
export type Role = (typeof ROLES)[number];

// The four tables better-auth's drizzle adapter expects (user, session, account, verification, plus its
// database rate limiter), with the admin plugin's role/banned columns. Mutable; sessions are revocable rows.
export const authUser = pgTable(
  "auth_user",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    email: text("email").notNull().unique(),
    emailVerified: boolean("email_verified").notNull().default(false),
    image: text("image"),
    createdAt: tstz("created_at").notNull().defaultNow(),
    updatedAt: tstz("updated_at").notNull().defaultNow(),
    role: text("role", { enum: ROLES }).notNull().default("support"),
    banned: boolean("banned").notNull().default(false),
    banReason: text("ban_reason"),
    banExpires: tstz("ban_expires"),
  },
  (t) => [check("auth_user_role_check", sql`${t.role} in ('support','ops','admin')`)],
);
export type AuthUser = typeof authUser.$inferSelect;

export const authSession = pgTable(
  "auth_session",
  {
    id: text("id").primaryKey(),
    expiresAt: tstz("expires_at").notNull(),
    token: text("token").notNull().unique(),
    createdAt: tstz("created_at").notNull().defaultNow(),
    updatedAt: tstz("updated_at").notNull().defaultNow(),
    ipAddress: text("ip_address"),
    userAgent: text("user_agent"),
    userId: text("user_id")
      .notNull()
      .references(() => authUser.id, { onDelete: "cascade" }),
    impersonatedBy: text("impersonated_by"),
  },
  (t) => [index("auth_session_user_idx").on(t.userId)],
);

export const authAccount = pgTable(
  "auth_account",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id").notNull(),
    providerId: text("provider_id").notNull(),
    userId: text("user_id")
      .notNull()
      .references(() => authUser.id, { onDelete: "cascade" }),
    accessToken: text("access_token"),
    refreshToken: text("refresh_token"),
    idToken: text("id_token"),
    accessTokenExpiresAt: tstz("access_token_expires_at"),
    refreshTokenExpiresAt: tstz("refresh_token_expires_at"),
    scope: text("scope"),
    password: text("password"),
    createdAt: tstz("created_at").notNull().defaultNow(),
    updatedAt: tstz("updated_at").notNull().defaultNow(),
  },
  (t) => [index("auth_account_user_idx").on(t.userId)],
);

export const authVerification = pgTable("auth_verification", {
  id: text("id").primaryKey(),
  identifier: text("identifier").notNull(),
  value: text("value").notNull(),
  expiresAt: tstz("expires_at").notNull(),
  createdAt: tstz("created_at").notNull().defaultNow(),
  updatedAt: tstz("updated_at").notNull().defaultNow(),
});

export const authRateLimit = pgTable("auth_rate_limit", {
  id: text("id").primaryKey(),
  key: text("key").notNull().unique(),
  count: integer("count").notNull(),
  lastRequest: bigint("last_request", { mode: "number" }).notNull(),
});

/** Key/value settings the app generates for itself (the auth secret when none is configured). */
export const appSetting = pgTable("app_setting", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
  createdAt: tstz("created_at").notNull().defaultNow(),
});

/**
 * Append-only: every console action, who did it to what, and how it ended. The one update: refusals
 * without a session share a row per action and minute, whose detail.count grows (lib/audit.ts).
 */
export const auditLog = pgTable(
  "audit_log",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    at: tstz("at").notNull().defaultNow(),
    actorId: text("actor_id"),
    actorEmail: text("actor_email").notNull(),
    action: text("action").notNull(),
    target: text("target").notNull(),
    detail: jsonb("detail").$type<Record<string, unknown>>().notNull().default({}),
    result: text("result", { enum: ["ok", "refused", "error"] }).notNull(),
    error: text("error"),
  },
  // Newest first on (at, id); each console filter has an index that leads with it and continues in that order.
  (t) => [
    index("audit_log_at_id_idx").on(t.at, t.id),
    index("audit_log_actor_idx").on(t.actorEmail, t.at, t.id),
    index("audit_log_action_idx").on(t.action, t.at, t.id),
    index("audit_log_result_idx").on(t.result, t.at, t.id),
    index("audit_log_target_idx").on(t.target),
  ],
);
export type AuditEntry = typeof auditLog.$inferSelect;
