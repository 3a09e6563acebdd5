/** The only reader of process.env. Everything else takes an `Env` (or a slice of it) as an argument. */

import { z } from "zod";

const secretList = z
  .string()
  .optional()
  .transform((v) =>
    (v ?? "")
      .split(",")
      .map((s) => s.trim())
      .filter((s) => s.length > 0),
  );

const optionalSecret = z
  .string()
  .optional()
  .transform((v) => (v && v.length > 0 ? v : undefined));

const int = (def: number, min = 0) => z.coerce.number().int().min(min).default(def);

export const EnvSchema = z.object({
  DATABASE_URL: z.string().url().optional(),
  PGLITE_DIR: z.string().default(".data/pglite"),
  /** false behind PgBouncer in transaction mode (no named prepared statements there). */
  DATABASE_PREPARE: z
    .enum(["true", "false"])
    .default("true")
    .transform((v) => v === "true"),
  PORT: int(3000, 1),
  /** Interface `npm start` binds; 0.0.0.0 to serve beyond this machine (behind a TLS proxy). */
  HOST: z.string().min(1).default("127.0.0.1"),
  STRIPE_WEBHOOK_SECRET: secretList,
  GITHUB_WEBHOOK_SECRET: secretList,
  SHOPIFY_WEBHOOK_SECRET: secretList,
  PADDLE_WEBHOOK_SECRET: secretList,
  SLACK_SIGNING_SECRET: secretList,
  STANDARD_WEBHOOK_SECRET: secretList,
  /**
   * A JSON file of sources declared for this deploy (lib/sources/declared.ts): slug, provider, name, state,
   * secretsEnv (the variable holding that source's comma-separated secrets). Secrets never live in the file.
   */
  SOURCES_FILE: z
    .string()
    .optional()
    .transform((v) => (v && v.length > 0 ? v : undefined)),
  /** 32 bytes (64 hex characters): seals the secrets of sources added in the console (AES-256-GCM). */
  LEDGER_SECRET_KEY: optionalSecret,
  /** How stale this process's copy of the console's sources may get before it reads them again. */
  SOURCES_REFRESH_MS: int(5000, 100),
  WEBHOOK_TOLERANCE_SECONDS: int(300, 1),
  WEBHOOK_MAX_BYTES: int(1024 * 1024, 1),
  /**
   * A delivery's whole body must arrive within this after its headers (providers send it in milliseconds);
   * else 408 and the connection closes.
   */
  WEBHOOK_BODY_TIMEOUT_MS: int(5000, 100),
  /**
   * Bytes of not-yet-verified bodies held across all connections at once; past it 503 with Retry-After, and
   * the connection closes.
   */
  WEBHOOK_UNVERIFIED_MAX_BYTES: int(64 * 1024 * 1024, 1024),
  /** Every delivery is answered by then: past it, 503 with Retry-After (the claim committed or was never written). */
  WEBHOOK_CLAIM_TIMEOUT_MS: int(2000, 50),
  /** Deliveries waiting for a claim statement, at most (count and raw-body bytes); past either, 503 at once. */
  WEBHOOK_QUEUE_MAX: int(2000, 1),
  WEBHOOK_QUEUE_MAX_BYTES: int(64 * 1024 * 1024, 1024),
  /** JSON nesting deeper than this answers 400 before any write (PostgreSQL's jsonb parser has a stack limit). */
  WEBHOOK_MAX_DEPTH: int(64, 2),
  /** Connections the receiver's claims keep for themselves, apart from the worker's and the console's pool. */
  CLAIM_POOL_MAX: int(4, 1),
  DATABASE_POOL_MAX: int(10, 1),
  /**
   * Server-side bounds on the app's pooled connections (the claim pool's statement bound is
   * WEBHOOK_CLAIM_TIMEOUT_MS instead); the worker's and replay's transactions take WORKER_STATEMENT_TIMEOUT_MS.
   */
  DATABASE_STATEMENT_TIMEOUT_MS: int(5000, 0),
  DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: int(10_000, 0),
  WORKER_STATEMENT_TIMEOUT_MS: int(30_000, 0),
  /** Fast-path processing (right after a claim) running at once, at most; past it the worker loop takes the event. */
  FAST_PATH_CONCURRENCY: int(2, 0),
  /**
   * Fast-path groups start at most this often: under a steady inflow the deliveries of the interval are leased and
   * settled together (one lease and one transaction per group); after a quiet interval the first goes at once.
   */
  FAST_PATH_LINGER_MS: int(20, 0),
  /** On SIGTERM/SIGINT: stop accepting, finish in-flight work, close the pools, exit 0; past this, exit 1. */
  SHUTDOWN_TIMEOUT_MS: int(10_000, 100),
  /** Optional Redis in front of the ledger: a marker set after a claim commits lets a retry answer without Postgres. */
  DEDUP_CACHE_URL: z
    .string()
    .url()
    .optional()
    .or(z.literal("").transform(() => undefined)),
  DEDUP_CACHE_TTL_SECONDS: int(60, 1),
  /** Lets a replay tool post events for any source without a signature: a master key, so at least 32 characters. */
  REPLAY_TOKEN: z
    .string()
    .optional()
    .transform((v) => (v && v.length > 0 ? v : undefined))
    .refine(
      (v) => v === undefined || v.length >= 32,
      "REPLAY_TOKEN must be at least 32 characters (e.g. openssl rand -hex 32)",
    ),
  /** Replay tokens scoped to one source each: "stripe:<token>,github:<token>", each at least 32 characters. */
  REPLAY_TOKENS: z
    .string()
    .optional()
    .transform((v, ctx) => {
      const out: Record<string, string[]> = {};
      for (const entry of (v ?? "")
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean)) {
        const at = entry.indexOf(":");
        const [source, token] = at > 0 ? [entry.slice(0, at), entry.slice(at + 1)] : ["", entry];
        if (!source || token.length < 32) {
          ctx.addIssue({
            code: "custom",
            message: `REPLAY_TOKENS entries look like source:<token of at least 32 characters> (got one for "${source || "?"}")`,
          });
          continue;
        }
        (out[source] ??= []).push(token);
      }
      return out;
    }),
  CLAIM_MODE: z.enum(["enforce", "shadow"]).default("enforce"),
  STRIPE_API_BASE: z.string().url().default("https://api.stripe.com"),
  STRIPE_API_KEY: optionalSecret,
  GITHUB_API_BASE: z.string().url().default("https://api.github.com"),
  GITHUB_TOKEN: optionalSecret,
  /** "owner/repo/hook_id": the repository webhook whose deliveries a GitHub replay lists. */
  GITHUB_REPLAY_HOOK: z
    .string()
    .regex(/^[\w.-]+\/[\w.-]+\/\d+$/, "GITHUB_REPLAY_HOOK must look like owner/repo/hook_id")
    .optional()
    .or(z.literal("").transform(() => undefined)),
  PADDLE_API_BASE: z.string().url().default("https://api.paddle.com"),
  PADDLE_API_KEY: optionalSecret,
  /** A replay run not heard from for this long is taken over (resumed) by another process. */
  REPLAY_LEASE_MS: int(60_000, 1000),
  WORKER_MODE: z.enum(["embedded", "off"]).default("embedded"),
  WORKER_CONCURRENCY: int(4, 1),
  WORKER_MAX_ATTEMPTS: int(8, 1),
  WORKER_BACKOFF_BASE_MS: int(1000, 1),
  WORKER_BACKOFF_MAX_MS: int(15 * 60 * 1000, 1),
  WORKER_LEASE_MS: int(30_000, 100),
  /** Unset: 100 in the app's process, 250 in a standalone worker (lib/worker/settings.ts says why). */
  WORKER_BATCH_SIZE: z.coerce.number().int().min(1).optional(),
  WORKER_POLL_MS: int(1000, 10),
  /** How often a worker merges the subject index's pending list (lib/worker/index-merge.ts); 0: never. */
  WORKER_INDEX_MERGE_MS: int(200, 0),
  /**
   * The public URL; https also makes the CSP upgrade insecure requests (and the auth cookies Secure,
   * lib/auth/server.ts).
   */
  APP_URL: z.string().url().optional(),
  /** Set by `next dev` / `npm start`; "development" lets the CSP allow eval, which React's dev tooling needs. */
  NODE_ENV: z.string().default("production"),
  BETTER_AUTH_SECRET: z.string().min(32, "BETTER_AUTH_SECRET must be at least 32 characters").optional(),
  ADMIN_EMAIL: z.string().email().optional(),
  ADMIN_PASSWORD: z.string().min(12, "ADMIN_PASSWORD must be at least 12 characters").optional(),
  SIGN_IN_PER_MINUTE: int(5, 1),
  SESSION_HOURS: int(12, 1),
  /** Retention (lib/retention): settled events received longer ago than this are pruned, leaving a tombstone. */
  RETENTION_DAYS: int(90, 1),
  /** How long a pruned event's tombstone keeps dedup (a late retry, a replay); at least RETENTION_DAYS. */
  TOMBSTONE_DAYS: int(400, 1),
  /** Finished replay runs older than this are deleted; audit rows older than AUDIT_RETENTION_DAYS (0: kept). */
  REPLAY_RETENTION_DAYS: int(90, 1),
  AUDIT_RETENTION_DAYS: int(365, 0),
  /**
   * How often every worker host (the embedded worker and `npm run worker`) runs retention (0: only `npm run
   * prune`; one run per interval across them all); the first run this long after start; events per batch;
   * pause between batches; the share of the time the prune's statements may take (it then pauses at least the
   * rest: at 25, three times as long as its last batch took).
   */
  RETENTION_INTERVAL_MINUTES: int(60, 0),
  RETENTION_FIRST_DELAY_MS: int(60_000, 0),
  RETENTION_BATCH_SIZE: int(500, 1),
  RETENTION_PAUSE_MS: int(20, 0),
  RETENTION_DUTY_PERCENT: z.coerce.number().int().min(1).max(100).default(25),
  /** Set: GET /metrics needs `Authorization: Bearer <token>` (compared in constant time); unset: open. */
  METRICS_TOKEN: optionalSecret,
  /** pino's level; unset: info (warn under vitest, NODE_ENV=test). */
  LOG_LEVEL: z.preprocess(
    (v) => (v === "" ? undefined : v),
    z.enum(["trace", "debug", "info", "warn", "error", "fatal", "silent"]).optional(),
  ),
  /** json (one object a line); pretty for people (pino-pretty). Unset: pretty when NODE_ENV=development. */
  LOG_FORMAT: z.preprocess((v) => (v === "" ? undefined : v), z.enum(["json", "pretty"]).optional()),
  /** Alerts (lib/alerts, README "Alerts"): a Slack incoming webhook; never logged or shown unmasked. */
  ALERT_SLACK_WEBHOOK_URL: z
    .string()
    .optional()
    .transform((v) => (v && v.length > 0 ? v : undefined))
    .refine((v) => v === undefined || /^https?:\/\/[^/\s]/i.test(v), "ALERT_SLACK_WEBHOOK_URL must be an http(s) URL")
    .refine((v) => v === undefined || URL.canParse(v), "ALERT_SLACK_WEBHOOK_URL is not a valid URL"),
  /** An endpoint that receives alerts signed with Standard Webhooks under ALERT_WEBHOOK_SECRET. */
  ALERT_WEBHOOK_URL: z
    .string()
    .optional()
    .transform((v) => (v && v.length > 0 ? v : undefined))
    .refine((v) => v === undefined || /^https?:\/\/[^/\s]/i.test(v), "ALERT_WEBHOOK_URL must be an http(s) URL")
    .refine((v) => v === undefined || URL.canParse(v), "ALERT_WEBHOOK_URL is not a valid URL"),
  ALERT_WEBHOOK_SECRET: optionalSecret.refine(
    (v) => v === undefined || /^whsec_[A-Za-z0-9+/]{22,}={0,2}$/.test(v),
    "ALERT_WEBHOOK_SECRET must be whsec_ followed by base64 (at least 16 bytes)",
  ),
  /** "an event went dead": on by default when a channel is set. */
  ALERT_DEAD_EVENTS: z.enum(["on", "off"]).optional(),
  /** Set: the rule is on by default with this threshold (the console may override it). */
  ALERT_BACKLOG_MINUTES: z.preprocess((v) => (v === "" ? undefined : v), z.coerce.number().int().min(1).optional()),
  ALERT_REFUSALS_PER_10_MINUTES: z.preprocess(
    (v) => (v === "" ? undefined : v),
    z.coerce.number().int().min(1).optional(),
  ),
  ALERT_SILENT_HOURS: z.preprocess((v) => (v === "" ? undefined : v), z.coerce.number().int().min(1).optional()),
  ALERT_EVALUATE_MS: int(15_000, 1000),
  /** A backlog, refusal or silence alert resolves once its condition has stayed clear this long (0: at once). */
  ALERT_RESOLVE_AFTER_MINUTES: int(5, 0),
  /** One alert request, connect to answer; the evaluator's tick never waits longer on a channel. */
  ALERT_SEND_TIMEOUT_MS: int(5000, 100),
  ALERT_MAX_ATTEMPTS: int(8, 1),
  ALERT_BACKOFF_BASE_MS: int(10_000, 100),
});

export type Env = z.infer<typeof EnvSchema>;

export class EnvError extends Error {}

export function parseEnv(source: Record<string, string | undefined>): Env {
  const parsed = EnvSchema.safeParse(source);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new EnvError(`Invalid environment:\n${lines.join("\n")}`);
  }
  return parsed.data;
}

let cached: Env | undefined;

export function getEnv(): Env {
  cached ??= parseEnv(process.env);
  return cached;
}

/**
 * One variable by a name chosen at run time (a declared source's `secretsEnv`), read as it stands now:
 * the only reader of process.env by name outside the schema above.
 */
export function envVar(name: string): string | undefined {
  return process.env[name];
}

/**
 * A copy of this process's environment as it stands now (raw strings, unparsed), for a CLI that builds a
 * child process's environment from it (`npm run quickstart`, `npm run dev`). A copy: changing it changes
 * neither process.env nor what getEnv() returns.
 */
export function inheritedEnv(): NodeJS.ProcessEnv {
  return { ...process.env };
}
