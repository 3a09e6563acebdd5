import { readFileSync } from "node:fs";
import { sql } from "drizzle-orm";
import { z } from "zod";
import { rowsOf, type Db, type Tx } from "@/db/client";
import { pgArray } from "@/db/pg-array";
import {
  DESTINATION_NAME,
  DESTINATION_STATES,
  FORWARD_FORMATS,
  FORWARD_MODES,
  type DestinationState,
  type ForwardFormat,
  type ForwardMode,
} from "@/db/schema/forward";
import { SOURCE_SLUG } from "@/db/schema/sources";
import type { SecretBox } from "@/lib/sources/secret-box";

/** A destination as the settle and the forwarder use it. Secrets are resolved only by the forwarder. */
export interface Destination {
  name: string;
  url: string;
  state: DestinationState;
  mode: ForwardMode;
  format: ForwardFormat;
  sources: string[] | null;
  types: string[] | null;
  maxInFlight: number;
  timeoutMs: number;
  ratePerSecond: number | null;
  maxAttempts: number;
  origin: "file" | "console";
  secretEnv: string | null;
  failuresInRow: number;
  breakerUntil: Date | null;
  breakerOpenings: number;
}

export class DestinationsConfigError extends Error {
  override name = "DestinationsConfigError";
}

/** One glob per type: exact, or `*` standing for any run of characters (`customer.subscription.*`). */
export function typeMatches(pattern: string, type: string): boolean {
  if (!pattern.includes("*")) return pattern === type;
  const parts = pattern.split("*");
  if (!type.startsWith(parts[0]!) || !type.endsWith(parts[parts.length - 1]!)) return false;
  let at = parts[0]!.length;
  for (const part of parts.slice(1, -1)) {
    const found = type.indexOf(part, at);
    if (found < 0) return false;
    at = found + part.length;
  }
  return at <= type.length - parts[parts.length - 1]!.length;
}

/** Whether an event of `source` and `type` goes to `d` (its filters; its state is the caller's). */
export function destinationMatches(d: Pick<Destination, "sources" | "types">, source: string, type: string): boolean {
  if (d.sources && !d.sources.includes(source)) return false;
  return !d.types || d.types.some((p) => typeMatches(p, type));
}

/** What a destination may be set to, from the file or the console: every bound a person can be told about. */
export const DestinationFields = z.strictObject({
  name: z
    .string()
    .regex(DESTINATION_NAME, "lowercase letters, digits and dashes, at most 63, starting with a letter or digit"),
  url: z
    .string()
    .max(2000)
    .refine((v) => URL.canParse(v) && /^https?:$/.test(new URL(v).protocol), "an http:// or https:// URL"),
  sources: z.array(z.string().regex(SOURCE_SLUG, "a source slug")).min(1).max(100).optional(),
  types: z
    .array(
      z
        .string()
        .min(1)
        .max(200)
        .regex(/^[\x21-\x7e]+$/, "printable characters, no spaces"),
    )
    .min(1)
    .max(100)
    .optional(),
  mode: z.enum(FORWARD_MODES).default("every"),
  format: z.enum(FORWARD_FORMATS).default("standard"),
  maxInFlight: z.number().int().min(1).max(500).default(10),
  timeoutMs: z.number().int().min(100).max(60_000).default(5000),
  ratePerSecond: z.number().int().min(1).max(10_000).optional(),
  maxAttempts: z.number().int().min(1).max(50).default(10),
  state: z.enum(DESTINATION_STATES).default("active"),
});
export type DestinationFields = z.infer<typeof DestinationFields>;

const DeclaredEntry = DestinationFields.extend({
  secretEnv: z.string().regex(/^[A-Z_][A-Z0-9_]{0,127}$/, "the name of an environment variable (A-Z, 0-9, _)"),
});
export type DeclaredDestination = z.infer<typeof DeclaredEntry>;

/** A Standard Webhooks signing secret: `whsec_` and base64 of 24 to 64 bytes. */
export function destinationSecretProblem(secret: string): string | undefined {
  const m = /^whsec_([A-Za-z0-9+/]+={0,2})$/.exec(secret);
  if (!m) return "must be a Standard Webhooks secret: whsec_ followed by base64";
  const bytes = Buffer.from(m[1]!, "base64").length;
  return bytes >= 24 && bytes <= 64 ? undefined : `must hold 24 to 64 bytes (holds ${bytes})`;
}

/**
 * DESTINATIONS_FILE, checked at start-up: every error names the entry and the field, and each entry's secret
 * variable must be set and hold Standard Webhooks secrets, so a bad deploy fails before it forwards anything.
 */
export function declaredDestinations(
  path: string | undefined,
  deps: { envVar: (name: string) => string | undefined; readFile?: (path: string) => string },
): DeclaredDestination[] {
  if (!path) return [];
  const fail = (message: string): never => {
    throw new DestinationsConfigError(`DESTINATIONS_FILE ${path}: ${message}`);
  };
  let entries: unknown;
  try {
    entries = JSON.parse((deps.readFile ?? ((p) => readFileSync(p, "utf8")))(path));
  } catch (err) {
    fail(err instanceof SyntaxError ? `not valid JSON (${err.message})` : `cannot be read (${(err as Error).message})`);
  }
  if (!Array.isArray(entries)) fail("must be a JSON array of destinations");
  const out: DeclaredDestination[] = [];
  (entries as unknown[]).forEach((raw, index) => {
    const name = (raw as { name?: unknown })?.name;
    const label = `entry ${index + 1}${typeof name === "string" ? ` ("${name.slice(0, 63)}")` : ""}`;
    const parsed = DeclaredEntry.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      fail(`${label}: ${issue.path.join(".") || "entry"}: ${issue.message}`);
    }
    const entry = parsed.data!;
    if (out.some((d) => d.name === entry.name)) fail(`${label}: name "${entry.name}" is declared twice`);
    const secrets = splitList(deps.envVar(entry.secretEnv));
    if (secrets.length === 0) fail(`${label}: ${entry.secretEnv} is not set (or empty)`);
    secrets.forEach((s, i) => {
      const problem = destinationSecretProblem(s);
      if (problem) fail(`${label}: ${entry.secretEnv}, secret ${i + 1} of ${secrets.length}: ${problem}`);
    });
    out.push(entry);
  });
  return out;
}

export const splitList = (value: string | undefined) =>
  (value ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s.length > 0);

/**
 * Writes the declared destinations into the table (every process does it at start-up; idempotent). The file owns
 * the configuration; the state only where the file says disabled or the row is new, so an operator's pause in the
 * console survives a restart.
 */
export async function syncDeclaredDestinations(db: Db, declared: readonly DeclaredDestination[]): Promise<void> {
  const list = (v: string[] | undefined) => (v ? pgArray(v, "text") : null);
  for (const d of declared) {
    await db.execute(sql`
      insert into forward_destination (name, url, state, mode, format, sources, types, max_in_flight, timeout_ms,
        rate_per_second, max_attempts, origin, secret_env)
      values (${d.name}, ${d.url}, ${d.state}, ${d.mode}, ${d.format}, ${list(d.sources)}, ${list(d.types)},
        ${d.maxInFlight}, ${d.timeoutMs}, ${d.ratePerSecond ?? null}, ${d.maxAttempts}, 'file', ${d.secretEnv})
      on conflict (name) do update set url = excluded.url, mode = excluded.mode, format = excluded.format,
        sources = excluded.sources, types = excluded.types, max_in_flight = excluded.max_in_flight,
        timeout_ms = excluded.timeout_ms, rate_per_second = excluded.rate_per_second,
        max_attempts = excluded.max_attempts, origin = 'file', secret_env = excluded.secret_env,
        state = case when excluded.state = 'disabled' or forward_destination.state = 'disabled' then excluded.state
                     else forward_destination.state end,
        updated_at = now()`);
  }
}

interface DestinationRow {
  name: string;
  url: string;
  state: DestinationState;
  mode: ForwardMode;
  format: ForwardFormat;
  sources: string[] | null;
  types: string[] | null;
  max_in_flight: number;
  timeout_ms: number;
  rate_per_second: number | null;
  max_attempts: number;
  origin: "file" | "console";
  secret_env: string | null;
  failures_in_row: number;
  breaker_until: string | Date | null;
  breaker_openings: number;
}

const toDestination = (r: DestinationRow): Destination => ({
  name: r.name,
  url: r.url,
  state: r.state,
  mode: r.mode,
  format: r.format,
  sources: r.sources,
  types: r.types,
  maxInFlight: Number(r.max_in_flight),
  timeoutMs: Number(r.timeout_ms),
  ratePerSecond: r.rate_per_second === null ? null : Number(r.rate_per_second),
  maxAttempts: Number(r.max_attempts),
  origin: r.origin,
  secretEnv: r.secret_env,
  failuresInRow: Number(r.failures_in_row),
  breakerUntil: r.breaker_until === null ? null : new Date(r.breaker_until),
  breakerOpenings: Number(r.breaker_openings),
});

/** Every destination (disabled ones too unless `live`), by name. */
export async function listDestinations(db: Db | Tx, opts: { live?: boolean } = {}): Promise<Destination[]> {
  const rows = rowsOf<DestinationRow>(
    await db.execute(sql`
      select name, url, state, mode, format, sources, types, max_in_flight, timeout_ms, rate_per_second, max_attempts,
        origin, secret_env, failures_in_row, breaker_until, breaker_openings
      from forward_destination ${opts.live ? sql`where state <> 'disabled'` : sql``}
      order by name`),
  );
  return rows.map(toDestination);
}

/**
 * The secrets a destination signs with, oldest first (the receiving side may hold either during a rotation). A
 * declared destination's come from its variable; a console one's are unsealed (never logged, never rendered).
 */
export async function destinationSecrets(
  db: Db,
  d: Pick<Destination, "name" | "origin" | "secretEnv">,
  deps: { envVar: (name: string) => string | undefined; box?: SecretBox },
): Promise<string[]> {
  if (d.origin === "file") return d.secretEnv ? splitList(deps.envVar(d.secretEnv)) : [];
  const rows = rowsOf<{ id: string; sealed: string }>(
    await db.execute(sql`
      select id, sealed from forward_destination_secret
      where destination = ${d.name} and (expires_at is null or expires_at > now())
      order by created_at, id`),
  );
  if (rows.length > 0 && !deps.box)
    throw new Error("LEDGER_SECRET_KEY is not set: the destination's secrets are sealed");
  return rows.map((r) => deps.box!.open(r.sealed, `destination:${d.name}:${r.id}`));
}
