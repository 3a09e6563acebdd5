import { spawn, type ChildProcess } from "node:child_process";
import { createServer, type AddressInfo } from "node:net";
import { childEnv } from "../tuning";

/** A TCP port on 127.0.0.1 that was free a moment ago (bound to 0, then released). */
export async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve, reject) => {
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", resolve);
  });
  const { port } = srv.address() as AddressInfo;
  await new Promise((r) => srv.close(r));
  return port;
}

export interface ExitResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** From spawn to exit. */
  ms: number;
}

export interface SpawnOptions {
  /** Added over process.env (or over nothing when `inheritEnv` is false). */
  env?: Record<string, string | undefined>;
  inheritEnv?: boolean;
  cwd?: string;
  /**
   * Start the child in its own process group and signal the whole group, so `npx tsx x.ts`
   * (npx → tsx → node) dies as a whole rather than leaving the grandchild running.
   */
  group?: boolean;
}

export interface SpawnedProcess {
  child: ChildProcess;
  pid: number;
  readonly stdout: string;
  readonly stderr: string;
  /** Resolves with the first line (stdout or stderr, including lines already printed) matching `re`. */
  waitForLine: (re: RegExp, timeoutMs?: number) => Promise<RegExpMatchArray>;
  /** Resolves when the process has exited (immediately if it already has); rejects after `timeoutMs`. */
  waitForExit: (timeoutMs?: number) => Promise<ExitResult>;
  kill: (signal?: NodeJS.Signals) => boolean;
  readonly exited: ExitResult | undefined;
}

const running = new Set<SpawnedProcess>();
let exitHookInstalled = false;

function installExitHook() {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on("exit", () => {
    for (const p of running) p.kill("SIGKILL");
  });
}

function tail(s: string, n = 2000): string {
  return s.length > n ? `…${s.slice(-n)}` : s;
}

export function spawnProcess(cmd: string, args: string[] = [], opts: SpawnOptions = {}): SpawnedProcess {
  installExitHook();
  const startedAt = Date.now();
  // Next.js declares NODE_ENV required on ProcessEnv; a child without it is still valid.
  const env: Record<string, string> = {};
  // The child's lifecycle lines ("listening on", "started:") are what tests wait for: info, whatever the
  // test process's NODE_ENV=test would make the logger's default.
  const base = { ...(opts.inheritEnv === false ? {} : process.env), LOG_LEVEL: "info" };
  for (const [k, v] of Object.entries(childEnv({ ...base, ...opts.env }))) if (v !== undefined) env[k] = v;
  const child: ChildProcess = spawn(cmd, args, {
    cwd: opts.cwd,
    env: env as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"],
    detached: opts.group ?? false,
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error(`spawn ${cmd} failed`);

  let stdout = "";
  let stderr = "";
  let exited: ExitResult | undefined;
  const lineWaiters = new Set<() => void>();
  const exitWaiters = new Set<() => void>();
  const notify = (set: Set<() => void>) => {
    for (const w of [...set]) w();
  };

  child.stdout?.setEncoding("utf8").on("data", (d: string) => {
    stdout += d;
    notify(lineWaiters);
  });
  child.stderr?.setEncoding("utf8").on("data", (d: string) => {
    stderr += d;
    notify(lineWaiters);
  });
  // 'close' rather than 'exit': by then every byte of stdout/stderr has been read.
  child.on("close", (code, signal) => {
    exited = { code, signal, ms: Date.now() - startedAt };
    running.delete(proc);
    notify(lineWaiters);
    notify(exitWaiters);
  });
  child.on("error", (err) => {
    stderr += `\n[spawn error] ${err.message}`;
    exited ??= { code: null, signal: null, ms: Date.now() - startedAt };
    running.delete(proc);
    notify(lineWaiters);
    notify(exitWaiters);
  });

  // Only whole lines, so /port (\d+)/ cannot match "port 30" of a "port 3000" still in flight; the unterminated tail counts once the process is gone.
  const lines = (s: string) => {
    const all = s.split("\n");
    return exited ? all : all.slice(0, -1);
  };
  const findLine = (re: RegExp): RegExpMatchArray | null => {
    for (const line of [...lines(stdout), ...lines(stderr)]) {
      const m = line.match(re);
      if (m) return m;
    }
    return null;
  };

  const proc: SpawnedProcess = {
    child,
    pid,
    get stdout() {
      return stdout;
    },
    get stderr() {
      return stderr;
    },
    get exited() {
      return exited;
    },
    waitForLine: (re, timeoutMs = 10_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const m = findLine(re);
          if (m) return done(() => resolve(m));
          if (exited)
            done(() =>
              reject(
                new Error(
                  `${cmd} exited (${exited?.code ?? exited?.signal}) before printing ${re}\nstdout: ${tail(stdout)}\nstderr: ${tail(stderr)}`,
                ),
              ),
            );
        };
        const timer = setTimeout(
          () =>
            done(() =>
              reject(
                new Error(
                  `no line matching ${re} from ${cmd} within ${timeoutMs} ms\nstdout: ${tail(stdout)}\nstderr: ${tail(stderr)}`,
                ),
              ),
            ),
          timeoutMs,
        );
        const done = (settle: () => void) => {
          clearTimeout(timer);
          lineWaiters.delete(check);
          settle();
        };
        lineWaiters.add(check);
        check();
      }),
    waitForExit: (timeoutMs = 10_000) =>
      new Promise((resolve, reject) => {
        if (exited) return resolve(exited);
        const onExit = () => {
          clearTimeout(timer);
          exitWaiters.delete(onExit);
          if (exited) resolve(exited);
        };
        const timer = setTimeout(() => {
          exitWaiters.delete(onExit);
          reject(new Error(`${cmd} (pid ${pid}) still running after ${timeoutMs} ms\nstderr: ${tail(stderr)}`));
        }, timeoutMs);
        exitWaiters.add(onExit);
      }),
    kill: (signal = "SIGTERM") => {
      if (exited) return false;
      try {
        if (opts.group) process.kill(-pid, signal);
        else child.kill(signal);
        return true;
      } catch {
        return false;
      }
    },
  };
  running.add(proc);
  return proc;
}

export interface WaitForHttpOptions {
  timeoutMs?: number;
  /** A status, a list of them, or a predicate; default: any 2xx. */
  expectStatus?: number | number[] | ((status: number) => boolean);
  /** Per-request limit, so one hung request does not eat the whole budget. */
  requestTimeoutMs?: number;
  intervalMs?: number;
  init?: RequestInit;
}

/** Polls `url` until it answers with the expected status; resolves with that answer. */
export async function waitForHttp(
  url: string,
  opts: WaitForHttpOptions = {},
): Promise<{ status: number; body: string; ms: number; attempts: number }> {
  const { timeoutMs = 15_000, requestTimeoutMs = 1_000, intervalMs = 100, expectStatus, init } = opts;
  const ok =
    typeof expectStatus === "function"
      ? expectStatus
      : Array.isArray(expectStatus)
        ? (s: number) => expectStatus.includes(s)
        : expectStatus !== undefined
          ? (s: number) => s === expectStatus
          : (s: number) => s >= 200 && s < 300;
  const started = Date.now();
  let attempts = 0;
  let last = "no attempt";
  while (Date.now() - started < timeoutMs) {
    attempts++;
    try {
      const remaining = Math.max(1, timeoutMs - (Date.now() - started));
      const res = await fetch(url, { ...init, signal: AbortSignal.timeout(Math.min(requestTimeoutMs, remaining)) });
      const body = await res.text();
      if (ok(res.status)) return { status: res.status, body, ms: Date.now() - started, attempts };
      last = `status ${res.status}: ${body.slice(0, 200)}`;
    } catch (err) {
      const e = err as Error & { cause?: { code?: string } };
      last = e.cause?.code ?? e.name ?? e.message;
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  throw new Error(`${url} did not answer as expected within ${timeoutMs} ms (${attempts} attempts; last: ${last})`);
}
