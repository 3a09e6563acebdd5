import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { LEGACY_SECRET_VARS as SECRET_KEYS, type LegacyKind } from "@/lib/sources/declared";

/** The quick start's demo admin and webhook secrets, generated once (never fixed) and shared with `npm run dev`. */
export const DEMO_FILE = ".data/demo.json";

export interface Demo {
  adminEmail: string;
  adminPassword: string;
  secrets: Partial<Record<LegacyKind, string>>;
  /** Seals the secrets of sources added in the console (LEDGER_SECRET_KEY); absent in files from before sources. */
  ledgerSecretKey?: string;
}

export const readDemo = (): Demo | undefined =>
  existsSync(DEMO_FILE) ? (JSON.parse(readFileSync(DEMO_FILE, "utf8")) as Demo) : undefined;

export function loadOrCreateDemo(): Demo {
  const existing = readDemo();
  if (existing?.ledgerSecretKey) return existing;
  if (existing) {
    // A demo file from before console-managed sources: give it a key once, keep everything else.
    const upgraded = { ...existing, ledgerSecretKey: randomBytes(32).toString("hex") };
    writeFileSync(DEMO_FILE, JSON.stringify(upgraded, null, 2), { mode: 0o600 });
    return upgraded;
  }
  const r = (n: number) => randomBytes(n).toString("base64url");
  const demo: Demo = {
    adminEmail: "admin@demo.local",
    adminPassword: `${r(6)}-${r(6)}-${r(6)}`,
    secrets: {
      stripe: `whsec_${r(24)}`,
      github: r(24),
      shopify: r(24),
      paddle: `pdl_ntfset_${r(24)}`,
      slack: r(24),
      standard: `whsec_${randomBytes(32).toString("base64")}`,
    },
    ledgerSecretKey: randomBytes(32).toString("hex"),
  };
  mkdirSync(path.dirname(DEMO_FILE), { recursive: true });
  writeFileSync(DEMO_FILE, JSON.stringify(demo, null, 2), { mode: 0o600 });
  return demo;
}

/**
 * The quick start's worker: a transient failure reaches dead in seconds rather than hours (a permanent one is
 * dead at its first attempt anyway). The README's quick start names these values.
 */
export const QUICKSTART_TUNING = { WORKER_MAX_ATTEMPTS: 3, WORKER_BACKOFF_BASE_MS: 250 } as const;

/** The demo's secrets and admin into a child's environment, under whatever it already sets. */
export function applyDemo(env: NodeJS.ProcessEnv, demo: Demo): void {
  for (const [source, key] of Object.entries(SECRET_KEYS)) env[key] ??= demo.secrets[source as LegacyKind];
  env.ADMIN_EMAIL ??= demo.adminEmail;
  env.ADMIN_PASSWORD ??= demo.adminPassword;
  if (demo.ledgerSecretKey) env.LEDGER_SECRET_KEY ??= demo.ledgerSecretKey;
}

/** The webhook secrets a child was given, by source: what the demo traffic is signed with. */
export const demoSecrets = (env: NodeJS.ProcessEnv): Record<LegacyKind, string> =>
  Object.fromEntries(Object.entries(SECRET_KEYS).map(([s, key]) => [s, env[key] ?? ""])) as Record<LegacyKind, string>;
