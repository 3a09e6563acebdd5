import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { postDeliveries } from "@/lib/demo/post";
import { demoTraffic } from "@/lib/demo/traffic";
import type { Source } from "@/lib/providers/types";

/**
 * `npm run quickstart` (after install and build): serve the app on the embedded database with demo
 * data. Demo credentials and webhook secrets are generated once into .data/demo.json, never fixed.
 */
const DATA = ".data";
const DEMO_FILE = `${DATA}/demo.json`;
const SEEDED = `${DATA}/demo-seeded`;
const SECRET_ENV: Record<Source, string> = {
  stripe: "STRIPE_WEBHOOK_SECRET", github: "GITHUB_WEBHOOK_SECRET", shopify: "SHOPIFY_WEBHOOK_SECRET",
  paddle: "PADDLE_WEBHOOK_SECRET", slack: "SLACK_SIGNING_SECRET", standard: "STANDARD_WEBHOOK_SECRET",
};

interface Demo {
  adminEmail: string;
  adminPassword: string;
  secrets: Record<Source, string>;
}

function loadDemo(): Demo {
  if (existsSync(DEMO_FILE)) return JSON.parse(readFileSync(DEMO_FILE, "utf8")) as Demo;
  const r = (n: number) => randomBytes(n).toString("base64url");
  const demo: Demo = {
    adminEmail: "admin@demo.local",
    adminPassword: `${r(6)}-${r(6)}-${r(6)}`,
    secrets: { stripe: `whsec_${r(24)}`, github: r(24), shopify: r(24), paddle: `pdl_ntfset_${r(24)}`, slack: r(24), standard: `whsec_${randomBytes(32).toString("base64")}` },
  };
  mkdirSync(DATA, { recursive: true });
  writeFileSync(DEMO_FILE, JSON.stringify(demo, null, 2), { mode: 0o600 });
  return demo;
}

async function waitForHealth(url: string, timeoutMs: number) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    try {
      if ((await fetch(`${url}/api/health`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`the app did not answer ${url}/api/health within ${timeoutMs / 1000} s`);
}

async function main() {
  const embedded = !process.env.DATABASE_URL;
  const demo = loadDemo();
  const port = process.env.PORT ?? "3000";
  const url = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = { NEXT_TELEMETRY_DISABLED: "1", ...process.env, NODE_ENV: "production", PORT: port, APP_URL: process.env.APP_URL ?? url };
  if (embedded) {
    for (const [source, key] of Object.entries(SECRET_ENV)) env[key] ??= demo.secrets[source as Source];
    env.ADMIN_EMAIL ??= demo.adminEmail;
    env.ADMIN_PASSWORD ??= demo.adminPassword;
    // Let the demo's broken event reach dead in seconds rather than hours.
    env.WORKER_MAX_ATTEMPTS ??= "3";
    env.WORKER_BACKOFF_BASE_MS ??= "250";
  }
  const child = spawn("node_modules/.bin/tsx", ["server.ts"], { stdio: "inherit", env });
  for (const sig of ["SIGINT", "SIGTERM"] as const) process.on(sig, () => child.kill(sig));
  child.on("exit", (code) => process.exit(code ?? 0));

  await waitForHealth(url, 120_000);
  if (embedded && !existsSync(SEEDED)) {
    const secrets = Object.fromEntries(Object.entries(SECRET_ENV).map(([s, key]) => [s, env[key]])) as Record<Source, string>;
    const summary = await postDeliveries(url, demoTraffic(), secrets);
    writeFileSync(SEEDED, new Date().toISOString());
    console.log(`[demo] posted ${summary.sent} signed deliveries through the receiver: ${JSON.stringify(summary.byStatus)}`);
  }
  console.log(`\n  Webhook Ledger is running at ${url}`);
  if (embedded)
    console.log(`  Sign in as ${env.ADMIN_EMAIL} / ${env.ADMIN_EMAIL === demo.adminEmail ? demo.adminPassword : "(your ADMIN_PASSWORD)"}\n  Demo webhook secrets are in ${DEMO_FILE}; remove ${DATA}/ to start over.\n`);
}

main().catch((err: unknown) => {
  console.error("[quickstart]", err instanceof Error ? err.message : err);
  process.exit(1);
});
