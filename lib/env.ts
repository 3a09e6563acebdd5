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

const urlOrBlank = z
  .string()
  .url()
  .optional()
  .or(z.literal("").transform(() => undefined));

const httpUrl = (name: string) =>
  z
    .string()
    .optional()
    .transform((v) => (v && v.length > 0 ? v : undefined))
    .refine((v) => v === undefined || /^https?:\/\/[^/\s]/i.test(v), `${name} must be an http(s) URL`)
    .refine((v) => v === undefined || URL.canParse(v), `${name} is not a valid URL`);

/**
 * The settings: what an operator has a reason to change, each in the README's table. Everything else the code
 * needs is a constant in TuningSchema below.
 */
export const SettingsSchema = z.object({
  /** Unset: the embedded PGlite in .data/pglite. `?prepare=false` behind PgBouncer in transaction mode. */
  DATABASE_URL: z.string().url().optional(),
  PORT: int(3000, 1),
  /** Interface `npm start` binds; 0.0.0.0 to serve beyond this machine (behind a TLS proxy). */
  HOST: z.string().min(1).default("127.0.0.1"),
  /**
   * The public URL; https also makes the CSP upgrade insecure requests (and the auth cookies Secure,
   * lib/auth/server.ts).
   */
  APP_URL: z.string().url().optional(),
  /** Set by `next dev` / `npm start`; "development" lets the CSP allow eval, which React's dev tooling needs. */
  NODE_ENV: z.string().default("production"),
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
  /**
   * A JSON file of destinations (lib/forward/destinations.ts): the team's endpoints that verified events are
   * forwarded to. Secrets live in the variables each entry names (secretEnv), never in the file.
   */
  DESTINATIONS_FILE: z
    .string()
    .optional()
    .transform((v) => (v && v.length > 0 ? v : undefined)),
  /** Forward to loopback and private addresses (a destination on this host or the internal network). */
  FORWARD_ALLOW_PRIVATE: z
    .enum(["true", "false"])
    .default("false")
    .transform((v) => v === "true"),
  /** 32 bytes (64 hex characters): seals the secrets of sources added in the console (AES-256-GCM). */
  LEDGER_SECRET_KEY: optionalSecret,
  WEBHOOK_MAX_BYTES: int(1024 * 1024, 1),
  CLAIM_MODE: z.enum(["enforce", "shadow"]).default("enforce"),
  WORKER_MODE: z.enum(["embedded", "off"]).default("embedded"),
  /** Optional Redis in front of the ledger: a marker set after a claim commits lets a retry answer without Postgres. */
  DEDUP_CACHE_URL: urlOrBlank,
  /**
   * Replay tokens, comma-separated: a bare token every source accepts (a master key), or `source:token` for one
   * source. Each at least 32 characters. Parsed to tokens by source, "*" holding the master tokens.
   */
  REPLAY_TOKEN: z
    .string()
    .optional()
    .transform((v, ctx) => {
      const out: Record<string, string[]> = {};
      for (const entry of (v ?? "")
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean)) {
        const scoped = /^([a-z0-9][a-z0-9-]*):(.+)$/.exec(entry);
        const [source, token] = scoped ? [scoped[1]!, scoped[2]!] : ["*", entry];
        if (token.length < 32) {
          const whose = source === "*" ? "every source" : source;
          ctx.addIssue({
            code: "custom",
            message: `REPLAY_TOKEN entries must be at least 32 characters, e.g. openssl rand -hex 32 (one for "${whose}" is shorter)`,
          });
          continue;
        }
        (out[source] ??= []).push(token);
      }
      return out;
    }),
  STRIPE_API_KEY: optionalSecret,
  GITHUB_TOKEN: optionalSecret,
  /**
   * The repository webhook a GitHub replay lists: `owner/repo/hook_id`, or its API URL
   * (`https://ghe.example.com/api/v3/repos/owner/repo/hooks/1`) for GitHub Enterprise.
   */
  GITHUB_REPLAY_HOOK: z
    .string()
    .optional()
    .transform((v) => (v && v.length > 0 ? v.trim() : undefined))
    .refine(
      (v) => v === undefined || GITHUB_HOOK.test(v) || GITHUB_HOOK_URL.test(v),
      "GITHUB_REPLAY_HOOK must look like owner/repo/hook_id or https://host/api/v3/repos/owner/repo/hooks/hook_id",
    ),
  /** Its prefix says live or sandbox (`pdl_sdbx_`), which picks Paddle's API. */
  PADDLE_API_KEY: optionalSecret,
  BETTER_AUTH_SECRET: z.string().min(32, "BETTER_AUTH_SECRET must be at least 32 characters").optional(),
  ADMIN_EMAIL: z.string().email().optional(),
  ADMIN_PASSWORD: z.string().min(12, "ADMIN_PASSWORD must be at least 12 characters").optional(),
  /** Retention (lib/retention): settled events received longer ago than this are pruned, leaving a tombstone. */
  RETENTION_DAYS: int(90, 1),
  AUDIT_RETENTION_DAYS: int(365, 0),
  /** How often the worker hosts prune (one run per interval across them all); 0: only `npm run prune`. */
  RETENTION_INTERVAL_MINUTES: int(60, 0),
  /** Set: GET /metrics needs `Authorization: Bearer <token>` (compared in constant time); unset: open. */
  METRICS_TOKEN: optionalSecret,
  /** pino's level; unset: info (warn under vitest, NODE_ENV=test). */
  LOG_LEVEL: z.preprocess(
    (v) => (v === "" ? undefined : v),
    z.enum(["trace", "debug", "info", "warn", "error", "fatal", "silent"]).optional(),
  ),
  /** Alerts (lib/alerts, README "Alerts"): a Slack incoming webhook; never logged or shown unmasked. */
  ALERT_SLACK_WEBHOOK_URL: httpUrl("ALERT_SLACK_WEBHOOK_URL"),
  /** An endpoint that receives alerts signed with Standard Webhooks under ALERT_WEBHOOK_SECRET. */
  ALERT_WEBHOOK_URL: httpUrl("ALERT_WEBHOOK_URL"),
  ALERT_WEBHOOK_SECRET: optionalSecret.refine(
    (v) => v === undefined || /^whsec_[A-Za-z0-9+/]{22,}={0,2}$/.test(v),
    "ALERT_WEBHOOK_SECRET must be whsec_ followed by base64 (at least 16 bytes)",
  ),
});

const GITHUB_HOOK = /^[\w.-]+\/[\w.-]+\/\d+$/;
const GITHUB_HOOK_URL = /^(https?:\/\/[^\s]+?)\/repos\/([\w.-]+)\/([\w.-]+)\/hooks\/(\d+)\/?$/;

/**
 * Constants, not settings: each value is what the product needs, and nobody running it has a reason to change
 * it. Tests shorten them (a lease of 1.5 s to see a crash reaped) through parseEnv's second argument, or, for a
 * process they start, LEDGER_TUNING (JSON of these names), which the quick start uses too (3 attempts, pretty
 * logs). It is not a setting: the README does not list it and its names may change. The API bases are how tests
 * point replay at a fake provider API.
 */
export const TuningSchema = z
  .object({
    /** The embedded database's directory (gitignored). */
    PGLITE_DIR: z.string().default(".data/pglite"),
    /** json in production (one object a line, for a log shipper); pretty under `npm run dev`. */
    LOG_FORMAT: z.enum(["json", "pretty"]).optional(),
    /** How stale a process's copy of the console's sources may get: a change in another process shows within it. */
    SOURCES_REFRESH_MS: int(5000, 100),
    /** Stripe's, Slack's and Standard Webhooks' own default tolerance for a signed timestamp. */
    WEBHOOK_TOLERANCE_SECONDS: int(300, 1),
    /** Providers send a body in milliseconds; a body slower than this is a slow-loris, answered 408. */
    WEBHOOK_BODY_TIMEOUT_MS: int(5000, 100),
    /** Unverified bytes held across all connections: a bound on what unauthenticated senders can pin in memory. */
    WEBHOOK_UNVERIFIED_MAX_BYTES: int(64 * 1024 * 1024, 1024),
    /** Every delivery is answered within this: well inside every provider's own timeout (Shopify's 5 s is the least). */
    WEBHOOK_CLAIM_TIMEOUT_MS: int(2000, 50),
    /** The waiting room for claims: past either bound a delivery is answered 503 at once, not left to time out. */
    WEBHOOK_QUEUE_MAX: int(2000, 1),
    WEBHOOK_QUEUE_MAX_BYTES: int(64 * 1024 * 1024, 1024),
    /** PostgreSQL's jsonb parser has a stack limit; deeper JSON answers 400 before any write. */
    WEBHOOK_MAX_DEPTH: int(64, 2),
    /** The claims' own connections, so a busy console or worker never delays an answer to a provider. */
    CLAIM_POOL_MAX: int(4, 1),
    /** The console's, worker's and replay's connections: with the claim pool, 14 per process. */
    DATABASE_POOL_MAX: int(10, 1),
    /** Bounds a console or API statement; the claim has its own (WEBHOOK_CLAIM_TIMEOUT_MS), the worker a longer one. */
    DATABASE_STATEMENT_TIMEOUT_MS: int(5000, 0),
    DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: int(10_000, 0),
    WORKER_STATEMENT_TIMEOUT_MS: int(30_000, 0),
    /** Under the 30 s most orchestrators wait between SIGTERM and SIGKILL. */
    SHUTDOWN_TIMEOUT_MS: int(10_000, 100),
    /** A retry storm lasts seconds to minutes; the ledger answers after the marker expires. */
    DEDUP_CACHE_TTL_SECONDS: int(60, 1),
    STRIPE_API_BASE: z.string().url().default("https://api.stripe.com"),
    /** Unset: from GITHUB_REPLAY_HOOK's URL, else api.github.com. */
    GITHUB_API_BASE: z.string().url().optional(),
    /** Unset: by PADDLE_API_KEY's prefix, live or sandbox. */
    PADDLE_API_BASE: z.string().url().optional(),
    /** A replay run not heard from for this long is taken over by another process. */
    REPLAY_LEASE_MS: int(60_000, 1000),
    WORKER_CONCURRENCY: int(4, 1),
    /** With the backoff below, the eighth attempt comes about an hour after the first: a deploy-sized outage. */
    WORKER_MAX_ATTEMPTS: int(8, 1),
    WORKER_BACKOFF_BASE_MS: int(1000, 1),
    WORKER_BACKOFF_MAX_MS: int(15 * 60 * 1000, 1),
    /** Longer than any batch takes; a crashed worker's events are taken over after it. */
    WORKER_LEASE_MS: int(30_000, 100),
    /** Unset: 100 in the app's process, 250 in a standalone worker (lib/worker/settings.ts says why). */
    WORKER_BATCH_SIZE: z.coerce.number().int().min(1).optional(),
    /** A backstop: NOTIFY wakes the loops; the poll finds what a lost notification left. */
    WORKER_POLL_MS: int(1000, 10),
    /** How often a worker merges the subject index's pending list (lib/worker/index-merge.ts); 0: never. */
    WORKER_INDEX_MERGE_MS: int(200, 0),
    /** Sign-in attempts per address and email a minute: slows guessing, never a person who mistyped. */
    SIGN_IN_PER_MINUTE: int(5, 1),
    /** A working day; a session ends after it and the person signs in again. */
    SESSION_HOURS: int(12, 1),
    /** A tombstone keeps dedup for late retries and replays; over a year covers Stripe's and GitHub's replay windows. */
    TOMBSTONE_DAYS: int(400, 1),
    REPLAY_RETENTION_DAYS: int(90, 1),
    /** The first prune waits for start-up to settle. */
    RETENTION_FIRST_DELAY_MS: int(60_000, 0),
    /** Prune in small batches with pauses, so claims never wait behind it (lib/retention/settings.ts). */
    RETENTION_BATCH_SIZE: int(500, 1),
    RETENTION_PAUSE_MS: int(20, 0),
    RETENTION_DUTY_PERCENT: z.coerce.number().int().min(1).max(100).default(25),
    ALERT_EVALUATE_MS: int(15_000, 1000),
    /** A condition must stay clear this long before its incident resolves, so a flapping one stays one incident. */
    ALERT_RESOLVE_AFTER_MINUTES: int(5, 0),
    ALERT_SEND_TIMEOUT_MS: int(5000, 100),
    ALERT_MAX_ATTEMPTS: int(8, 1),
    ALERT_BACKOFF_BASE_MS: int(10_000, 100),
  })
  .strict();

export type Settings = z.infer<typeof SettingsSchema>;
export type Tuning = z.infer<typeof TuningSchema>;
export type TuningInput = z.input<typeof TuningSchema>;
/** What the code reads: the settings, the constants, and the API bases derived from them (always set). */
export type Env = Settings &
  Omit<Tuning, "GITHUB_API_BASE" | "PADDLE_API_BASE"> & {
    GITHUB_API_BASE: string;
    PADDLE_API_BASE: string;
  };

/** The names the table in the README lists; anything else set in the environment is not read. */
export const SETTING_NAMES = Object.keys(SettingsSchema.shape);

export class EnvError extends Error {}

const issueLines = (issues: readonly z.core.$ZodIssue[], prefix = "") =>
  issues.map((i) => `  ${prefix}${i.path.join(".")}: ${i.message}`);

/** `tuning`: a test's shorter timings, over LEDGER_TUNING's, over the constants. */
export function parseEnv(source: Record<string, string | undefined>, tuning: TuningInput = {}): Env {
  const settings = SettingsSchema.safeParse(source);
  let fromVariable: unknown = {};
  const problems: string[] = settings.success ? [] : issueLines(settings.error.issues);
  if (source.LEDGER_TUNING) {
    try {
      fromVariable = JSON.parse(source.LEDGER_TUNING);
    } catch {
      problems.push("  LEDGER_TUNING: not JSON");
    }
  }
  const tuned = TuningSchema.safeParse({ ...(fromVariable as object), ...tuning });
  if (!tuned.success) problems.push(...issueLines(tuned.error.issues, "LEDGER_TUNING."));
  if (!settings.success || !tuned.success || problems.length > 0)
    throw new EnvError(`Invalid environment:\n${problems.join("\n")}`);
  return derive(settings.data, tuned.data);
}

/** The API bases the settings imply: GitHub Enterprise from the hook's URL, Paddle's sandbox from the key. */
function derive(settings: Settings, tuning: Tuning): Env {
  const env = { ...settings, ...tuning };
  const hookUrl = env.GITHUB_REPLAY_HOOK ? GITHUB_HOOK_URL.exec(env.GITHUB_REPLAY_HOOK) : null;
  return {
    ...env,
    GITHUB_REPLAY_HOOK: hookUrl ? `${hookUrl[2]}/${hookUrl[3]}/${hookUrl[4]}` : env.GITHUB_REPLAY_HOOK,
    GITHUB_API_BASE: env.GITHUB_API_BASE ?? hookUrl?.[1] ?? "https://api.github.com",
    PADDLE_API_BASE:
      env.PADDLE_API_BASE ??
      (env.PADDLE_API_KEY?.startsWith("pdl_sdbx_") ? "https://sandbox-api.paddle.com" : "https://api.paddle.com"),
  };
}

/**
 * Variables that were settings in earlier versions and are constants now: start-up names them, so an operator
 * who still sets one learns it has no effect.
 */
export function retiredVariables(source: Record<string, string | undefined> = process.env): string[] {
  const retired = [
    ...Object.keys(TuningSchema.shape),
    "DATABASE_PREPARE",
    "REPLAY_TOKENS",
    "ALERT_DEAD_EVENTS",
    "ALERT_BACKLOG_MINUTES",
    "ALERT_REFUSALS_PER_10_MINUTES",
    "ALERT_SILENT_HOURS",
    "FAST_PATH_CONCURRENCY",
    "FAST_PATH_LINGER_MS",
  ];
  return retired.filter((name) => source[name] !== undefined && source[name] !== "");
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
