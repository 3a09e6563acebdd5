import { readFileSync } from "node:fs";
import { z } from "zod";
import { SOURCE_SLUG, SOURCE_STATES } from "@/db/schema/sources";
import type { Env } from "@/lib/env";
import { PROVIDERS } from "@/lib/providers";
import { PROVIDER_KINDS, type ProviderKind } from "@/lib/providers/types";
import { secretFormatProblem } from "./secret-format";
import type { ResolvedSource, SourceSecret } from "./types";

/**
 * The six variables that declared one endpoint per provider before sources had slugs: each still
 * declares the source of that name (/api/webhooks/stripe, …), so existing URLs keep working.
 */
export const LEGACY_SECRET_VARS = {
  stripe: "STRIPE_WEBHOOK_SECRET",
  github: "GITHUB_WEBHOOK_SECRET",
  shopify: "SHOPIFY_WEBHOOK_SECRET",
  paddle: "PADDLE_WEBHOOK_SECRET",
  slack: "SLACK_SIGNING_SECRET",
  standard: "STANDARD_WEBHOOK_SECRET",
} as const satisfies Partial<Record<ProviderKind, keyof Env>>;

export class SourcesConfigError extends Error {
  override name = "SourcesConfigError";
}

const DeclaredEntry = z.strictObject({
  slug: z
    .string()
    .regex(SOURCE_SLUG, "lowercase letters, digits and dashes, at most 63, starting with a letter or digit"),
  provider: z.enum(PROVIDER_KINDS),
  name: z.string().min(1).max(100),
  state: z.enum(SOURCE_STATES).default("active"),
  secretsEnv: z.string().regex(/^[A-Z_][A-Z0-9_]{0,127}$/, "the name of an environment variable (A-Z, 0-9, _)"),
  toleranceSeconds: z.number().int().min(1).max(86_400).optional(),
  options: z.record(z.string(), z.unknown()).optional(),
});

export const splitSecrets = (value: string | undefined) =>
  (value ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s.length > 0);

export interface DeclareDeps {
  /** Reads a variable by name (lib/env.ts envVar). */
  envVar: (name: string) => string | undefined;
  readFile?: (path: string) => string;
  fingerprint: (secret: string) => string;
}

/**
 * The sources this deploy declares: the legacy variables, then SOURCES_FILE. Checked at start-up;
 * every error names the offending entry, so a bad deploy fails before it answers a single delivery.
 */
export function declaredSources(env: Env, deps: DeclareDeps): ResolvedSource[] {
  const out = new Map<string, ResolvedSource>();
  const secretsOf = (values: readonly string[]): SourceSecret[] =>
    values.map((value) => ({ value, fingerprint: deps.fingerprint(value) }));
  for (const [provider, variable] of Object.entries(LEGACY_SECRET_VARS) as [ProviderKind, keyof Env][]) {
    const values = env[variable] as readonly string[];
    if (values.length === 0) continue;
    const problem = secretsProblem(provider, variable, values);
    if (problem) throw new SourcesConfigError(problem);
    out.set(provider, {
      slug: provider,
      provider,
      name: PROVIDERS[provider].label,
      state: "active",
      options: {},
      secrets: secretsOf(values),
      origin: { kind: "env", variable },
    });
  }
  if (!env.SOURCES_FILE) return [...out.values()];
  const path = env.SOURCES_FILE;
  const fail = (message: string): never => {
    throw new SourcesConfigError(`SOURCES_FILE ${path}: ${message}`);
  };
  let entries: unknown;
  try {
    entries = JSON.parse((deps.readFile ?? ((p) => readFileSync(p, "utf8")))(path));
  } catch (err) {
    fail(err instanceof SyntaxError ? `not valid JSON (${err.message})` : `cannot be read (${(err as Error).message})`);
  }
  if (!Array.isArray(entries)) fail("must be a JSON array of sources");
  (entries as unknown[]).forEach((raw, index) => {
    const label = `entry ${index + 1}${typeof (raw as { slug?: unknown })?.slug === "string" ? ` ("${(raw as { slug: string }).slug}")` : ""}`;
    const parsed = DeclaredEntry.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      fail(`${label}: ${issue.path.join(".") || "entry"}: ${issue.message}`);
    }
    const entry = parsed.data!;
    if (out.has(entry.slug)) {
      const other = out.get(entry.slug)!.origin;
      fail(
        `${label}: slug "${entry.slug}" is already declared${other.kind === "env" ? ` by ${other.variable}` : " above"}`,
      );
    }
    const values = splitSecrets(deps.envVar(entry.secretsEnv));
    if (values.length === 0 && entry.state !== "disabled") fail(`${label}: ${entry.secretsEnv} is not set (or empty)`);
    const problem = secretsProblem(entry.provider, entry.secretsEnv, values);
    if (problem) fail(`${label}: ${problem}`);
    let options: unknown = {};
    try {
      options = PROVIDERS[entry.provider].parseOptions?.(entry.options ?? {}) ?? {};
      if (!PROVIDERS[entry.provider].parseOptions && entry.options && Object.keys(entry.options).length > 0)
        fail(`${label}: options: the ${entry.provider} kind takes none`);
    } catch (err) {
      if (err instanceof SourcesConfigError) throw err;
      fail(`${label}: options: ${optionsMessage(err)}`);
    }
    out.set(entry.slug, {
      slug: entry.slug,
      provider: entry.provider,
      name: entry.name,
      state: entry.state,
      toleranceSeconds: entry.toleranceSeconds,
      options,
      secrets: secretsOf(values),
      origin: { kind: "file", path, index, secretsEnv: entry.secretsEnv },
    });
  });
  return [...out.values()];
}

/** The first secret of a variable that is not in its kind's format, named by position (never by value). */
function secretsProblem(kind: ProviderKind, variable: string, values: readonly string[]): string | undefined {
  for (const [i, value] of values.entries()) {
    const problem = secretFormatProblem(kind, value);
    if (problem) return `${variable}, secret ${i + 1} of ${values.length}: ${problem}`;
  }
  return undefined;
}

/** A zod error from a provider's parseOptions, as one line naming the field. */
export function optionsMessage(err: unknown): string {
  if (err instanceof z.ZodError) {
    const issue = err.issues[0];
    return issue ? `${issue.path.join(".") || "options"}: ${issue.message}` : "invalid";
  }
  return err instanceof Error ? err.message : String(err);
}

/** The kinds a legacy variable declares (every kind but the generic one, which needs options). */
export type LegacyKind = keyof typeof LEGACY_SECRET_VARS;
export const LEGACY_KINDS = Object.keys(LEGACY_SECRET_VARS) as LegacyKind[];
