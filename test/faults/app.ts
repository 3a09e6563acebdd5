import { TEST_SECRETS } from "../sign";
import { freePort, spawnProcess, waitForHttp, type SpawnedProcess } from "./processes";

export interface AppProcess {
  proc: SpawnedProcess;
  url: string;
  port: number;
  /** Resident memory of the process now, in bytes (/proc/<pid>/status VmRSS). */
  rss: () => Promise<number>;
  /** The DevTools endpoint, when started with `inspect` (ws://127.0.0.1:…). */
  inspectorUrl?: string;
  stop: (signal?: NodeJS.Signals) => Promise<void>;
}

/**
 * A real app process: `npm run receiver` (the intake, the embedded worker and replay resumer; the same
 * lib/ code as `npm start`, without the console's build step) on a free port, against `databaseUrl`.
 */
export async function startApp(
  databaseUrl: string,
  env: Record<string, string> = {},
  port?: number,
  opts: { inspect?: boolean } = {},
): Promise<AppProcess> {
  // freePort() only says the port was free a moment ago: once, the inspector (on a port of the system's choosing)
  // took it before the app could. A port the test did not ask for is tried again.
  for (let attempt = 1; ; attempt++) {
    const p = port ?? (await freePort());
    try {
      return await startAppOn(databaseUrl, env, p, opts);
    } catch (err) {
      if (port === undefined && attempt < 3 && /EADDRINUSE/.test(String(err))) continue;
      throw err;
    }
  }
}

async function startAppOn(
  databaseUrl: string,
  env: Record<string, string>,
  p: number,
  opts: { inspect?: boolean },
): Promise<AppProcess> {
  // The inspector on a port of its own choosing (0), so concurrent test files never collide.
  const inspect = opts.inspect ? ["--inspect=127.0.0.1:0"] : [];
  const proc = spawnProcess("node", [...inspect, "--import", "tsx", "lib/cli/receiver.ts"], {
    env: {
      NODE_ENV: "production",
      DATABASE_URL: databaseUrl,
      PORT: String(p),
      HOST: "127.0.0.1",
      STRIPE_WEBHOOK_SECRET: TEST_SECRETS.stripe,
      GITHUB_WEBHOOK_SECRET: TEST_SECRETS.github,
      SHOPIFY_WEBHOOK_SECRET: TEST_SECRETS.shopify,
      PADDLE_WEBHOOK_SECRET: TEST_SECRETS.paddle,
      SLACK_SIGNING_SECRET: TEST_SECRETS.slack,
      STANDARD_WEBHOOK_SECRET: TEST_SECRETS.standard,
      WORKER_POLL_MS: "100",
      ...env,
    },
  });
  const inspectorUrl = opts.inspect
    ? (await proc.waitForLine(/Debugger listening on (ws:\/\/\S+)/, 30_000))[1]
    : undefined;
  // A start on a busy machine (two cores shared with the other tiers) can take most of a minute.
  await proc.waitForLine(/\[receiver\] listening on/, 90_000);
  const url = `http://127.0.0.1:${p}`;
  await waitForHttp(`${url}/api/health`, { timeoutMs: 15_000, expectStatus: [200, 503] });
  return {
    proc,
    url,
    port: p,
    inspectorUrl,
    rss: async () => {
      const { readFile } = await import("node:fs/promises");
      const status = await readFile(`/proc/${proc.pid}/status`, "utf8");
      return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
    },
    stop: async (signal = "SIGTERM") => {
      if (proc.exited) return;
      proc.kill(signal);
      await proc.waitForExit(20_000).catch(() => proc.kill("SIGKILL"));
    },
  };
}

/** An answer as a sender sees it: the status, or "hang" when none came within `timeoutMs`. */
export async function send(
  url: string,
  d: { headers: Record<string, string>; body: string },
  timeoutMs = 10_000,
): Promise<{ status: number | "hang" | "error"; ms: number; retryAfter?: string | null; body?: string }> {
  const started = performance.now();
  try {
    const res = await fetch(`${url}`, {
      method: "POST",
      headers: d.headers,
      body: d.body,
      signal: AbortSignal.timeout(timeoutMs),
    });
    const body = await res.text();
    return { status: res.status, ms: performance.now() - started, retryAfter: res.headers.get("retry-after"), body };
  } catch (err) {
    const name = (err as Error).name;
    return { status: name === "TimeoutError" ? "hang" : "error", ms: performance.now() - started };
  }
}
