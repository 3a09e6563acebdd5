import { existsSync } from "node:fs";
import { defineConfig } from "@playwright/test";
import { E2E } from "./e2e/env";

const chromium = process.env.CHROMIUM_PATH ?? (existsSync("/usr/bin/chromium") ? "/usr/bin/chromium" : undefined);

export default defineConfig({
  testDir: "./e2e",
  outputDir: "./test-results",
  workers: 2,
  retries: 0,
  // Hang guards: tests assert what happens, never how fast (speed is in bench/). On a loaded two-core machine a
  // page that answers in 0.3 s alone took several seconds.
  timeout: 120_000,
  expect: { timeout: 15_000 },
  reporter: [["list"]],
  use: {
    baseURL: E2E.baseURL,
    screenshot: "only-on-failure",
    launchOptions: {
      executablePath: chromium,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-default-apps",
        "--disable-extensions",
      ],
    },
  },
  webServer: {
    command: "node scripts/prepare-app.mjs && tsx e2e/serve.ts",
    url: `${E2E.baseURL}/api/health`,
    reuseExistingServer: false,
    // e2e/serve.ts stops the app, then drops the run's database.
    gracefulShutdown: { signal: "SIGTERM", timeout: 20_000 },
    timeout: 240_000,
    stdout: "pipe",
    stderr: "pipe",
  },
});
