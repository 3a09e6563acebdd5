/**
 * `npm run quickstart` (after install and build): serve the app on the embedded database with demo
 * data. Demo credentials and webhook secrets are generated once into .data/demo.json, never fixed.
 */

import { spawn } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import { connectPglite } from "@/db/client";
import { acquirePgliteLock } from "@/db/pglite-lock";
import { postDeliveries } from "@/lib/demo/post";
import { applyDemo, DEMO_FILE, demoSecrets, loadOrCreateDemo, QUICKSTART_TUNING } from "@/lib/demo/demo-file";
import { demoTraffic } from "@/lib/demo/traffic";
import { inheritedEnv, TuningSchema } from "@/lib/env";

const DATA = ".data";
const SEEDED = `${DATA}/demo-seeded`;

/**
 * Refuse before starting a server, not after 120 s of failed health checks: the embedded database
 * held by another process (a `npm run dev`, an earlier quick start) or one that cannot be opened.
 */
async function checkEmbedded(dir: string) {
  if (existsSync(dir)) return (await connectPglite(dir)).close();
  mkdirSync(path.dirname(path.resolve(dir)), { recursive: true });
  acquirePgliteLock(dir).release();
}

async function checkPortFree(port: number) {
  await new Promise<void>((resolve, reject) => {
    const probe = createServer();
    probe.once("error", (err: NodeJS.ErrnoException) =>
      reject(
        err.code === "EADDRINUSE"
          ? new Error(
              `port ${port} is already in use (an earlier quick start or \`npm run dev\`?): stop it, or set PORT`,
            )
          : err,
      ),
    );
    probe.listen(port, "127.0.0.1", () => probe.close(() => resolve()));
  });
}

interface Server {
  /** Set once the server process has exited. */
  exit?: { code: number | null; signal: NodeJS.Signals | null };
  exited: Promise<void>;
  signal: (sig: NodeJS.Signals) => void;
}

function startServer(env: NodeJS.ProcessEnv): Server {
  // Its own process group: tsx runs server.ts in a child of its own, and a stop must reach both.
  const group = process.platform !== "win32";
  const child = spawn("node_modules/.bin/tsx", ["server.ts"], { stdio: "inherit", env, detached: group });
  const server: Server = {
    exited: new Promise((resolve) =>
      child.once("exit", (code, signal) => resolve(void (server.exit = { code, signal }))),
    ),
    signal: (sig) => {
      try {
        if (group && child.pid) process.kill(-child.pid, sig);
        else child.kill(sig);
      } catch {
        // already gone
      }
    },
  };
  return server;
}

/** SIGTERM (the server drains within SHUTDOWN_TIMEOUT_MS), then SIGKILL if it has not exited by then. */
async function stopServer(server: Server, graceMs: number) {
  server.signal("SIGTERM");
  const stopped = await Promise.race([server.exited.then(() => true), sleep(graceMs).then(() => false)]);
  if (!stopped) console.error(`[quickstart] the server did not stop within ${graceMs / 1000} s; killing it`);
  server.signal("SIGKILL");
  await server.exited;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

const describeExit = (exit: NonNullable<Server["exit"]>) =>
  exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;

async function waitForHealth(url: string, timeoutMs: number, server: Server) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (server.exit)
      throw new Error(
        `the server ${describeExit(server.exit)} before it answered ${url}/api/health (its output is above)`,
      );
    try {
      if ((await fetch(`${url}/api/health`, { signal: AbortSignal.timeout(5000) })).ok) return;
    } catch {
      // not listening yet
    }
    await Promise.race([sleep(250), server.exited]);
  }
  throw new Error(`the app did not answer ${url}/api/health within ${timeoutMs / 1000} s (its output is above)`);
}

let interrupted = false;

async function main() {
  const parent = inheritedEnv();
  const embedded = !parent.DATABASE_URL;
  const demo = loadOrCreateDemo();
  const port = parent.PORT ?? "3000";
  const url = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = {
    NEXT_TELEMETRY_DISABLED: "1",
    ...parent,
    NODE_ENV: "production",
    PORT: port,
    APP_URL: parent.APP_URL ?? url,
    // A person reads this terminal: warnings only, as text (a deploy sets LOG_LEVEL itself and reads JSON).
    LOG_LEVEL: parent.LOG_LEVEL ?? "warn",
  };
  const tuning: Record<string, unknown> = { LOG_FORMAT: "pretty", ...(embedded ? QUICKSTART_TUNING : {}) };
  env.LEDGER_TUNING = JSON.stringify({ ...tuning, ...(parent.LEDGER_TUNING ? JSON.parse(parent.LEDGER_TUNING) : {}) });
  if (embedded) applyDemo(env, demo);
  if (embedded) await checkEmbedded(TuningSchema.shape.PGLITE_DIR.parse(undefined));
  await checkPortFree(Number(port));

  const server = startServer(env);
  // The server is in its own process group, so a Ctrl-C reaches it only through us.
  for (const sig of ["SIGINT", "SIGTERM"] as const)
    process.on(sig, () => {
      interrupted = true;
      server.signal(sig);
    });
  // Last resort (an uncaught error): never leave the server running without us.
  process.once("exit", () => {
    if (!server.exit) server.signal("SIGTERM");
  });
  try {
    await waitForHealth(url, 120_000, server);
    if (embedded && !existsSync(SEEDED)) {
      const secrets = demoSecrets(env);
      const summary = await postDeliveries(url, demoTraffic(), secrets);
      writeFileSync(SEEDED, new Date().toISOString());
      console.log(
        `[demo] posted ${summary.sent} signed deliveries through the receiver: ${JSON.stringify(summary.byStatus)}`,
      );
    }
  } catch (err) {
    await stopServer(server, (Number(parent.SHUTDOWN_TIMEOUT_MS) || 10_000) + 5000);
    throw err;
  }
  console.log(`\n  Webhook Ledger is running at ${url}`);
  if (embedded)
    console.log(
      `  Sign in as ${env.ADMIN_EMAIL} / ${env.ADMIN_EMAIL === demo.adminEmail ? demo.adminPassword : "(your ADMIN_PASSWORD)"}\n` +
        `  Demo webhook secrets are in ${DEMO_FILE}; remove ${DATA}/ to start over.\n`,
    );
  await server.exited;
  process.exit(server.exit?.code ?? (interrupted ? 0 : 1));
}

main().catch((err: unknown) => {
  if (!interrupted) console.error("[quickstart]", err instanceof Error ? err.message : err);
  process.exit(interrupted ? 130 : 1);
});
