import { spawn } from "node:child_process";
import postgres from "postgres";
import { dropDatabases } from "../test/drop-databases";
import { childEnv } from "../test/tuning";
import { E2E } from "./env";

/**
 * Creates this run's fresh database, serves the built app on it (`npm start`: server.ts), and drops the database
 * once the app has exited (Playwright stops this process group with SIGTERM): dropped while the app still ran,
 * its pools' reconnects queued behind the drop's checkpoint until PostgreSQL had no connection left to give.
 */
async function main() {
  const admin = postgres(E2E.adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${E2E.databaseName}`);
  await admin.end();
  const child = spawn("node_modules/.bin/tsx", ["server.ts"], {
    stdio: "inherit",
    env: childEnv({
      ...process.env,
      NODE_ENV: "production",
      PORT: String(E2E.port),
      ...E2E.secrets,
      ...E2E.replayApi.env,
      DATABASE_URL: E2E.databaseUrl,
      REPLAY_TOKEN: E2E.replayToken,
      LEDGER_SECRET_KEY: E2E.ledgerSecretKey,
      APP_URL: E2E.baseURL,
      ADMIN_EMAIL: E2E.admin.email,
      ADMIN_PASSWORD: E2E.admin.password,
      // Every browser here signs in from 127.0.0.1: the per-IP limit is tested in vitest, the per-account one below.
      SIGN_IN_PER_MINUTE: "1000",
      // e2e/ui/destinations.spec.ts forwards to a destination it serves on loopback.
      FORWARD_ALLOW_PRIVATE: "true",
      NEXT_TELEMETRY_DISABLED: "1",
    }),
  });
  const stop = () => child.kill("SIGTERM");
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
  child.on("exit", (code) => {
    void dropDatabases(E2E.adminUrl, [E2E.databaseName]).finally(() => process.exit(code ?? 0));
  });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
