import { randomBytes } from "node:crypto";

// Set once in Playwright's main process; its workers and the web server inherit the same values.
process.env.E2E_DATABASE_NAME ??= `ledger_e2e_${Date.now()}_${randomBytes(3).toString("hex")}`;
process.env.E2E_PORT ??= "3200";

const admin = process.env.TEST_ADMIN_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const dbUrl = new URL(admin);
dbUrl.pathname = `/${process.env.E2E_DATABASE_NAME}`;

export const E2E = {
  adminUrl: admin,
  databaseName: process.env.E2E_DATABASE_NAME,
  databaseUrl: dbUrl.toString(),
  port: Number(process.env.E2E_PORT),
  baseURL: `http://127.0.0.1:${process.env.E2E_PORT}`,
  replayToken: "e2e-replay-token-0123456789abcdef-0123",
  /** The fake Stripe API e2e/ui/replay.spec.ts serves while it runs; the app's replay talks to it. */
  replayApi: {
    port: 3291,
    env: { STRIPE_API_BASE: "http://127.0.0.1:3291", STRIPE_API_KEY: "sk_test_e2e_replay_key" },
  },
  admin: { email: "admin@e2e.example", password: "e2e admin password 1" },
  /** Seals the secrets of sources added in the console (AES-256-GCM). */
  ledgerSecretKey: "e2e0".repeat(16),
  secrets: {
    STRIPE_WEBHOOK_SECRET: "whsec_e2e_stripe_old,whsec_e2e_stripe",
    GITHUB_WEBHOOK_SECRET: "e2e-github",
    SHOPIFY_WEBHOOK_SECRET: "e2e-shopify",
    PADDLE_WEBHOOK_SECRET: "pdl_ntfset_e2e",
    SLACK_SIGNING_SECRET: "e2e-slack",
    STANDARD_WEBHOOK_SECRET: `whsec_${Buffer.from("e2e-standard-secret-of-32-bytes!").toString("base64")}`,
  },
};
