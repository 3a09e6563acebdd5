import { execFile, execFileSync, spawn } from "node:child_process";
import { appendFileSync, chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import postgres from "postgres";
import { freePort } from "./processes";

const run = promisify(execFile);

const PG_BIN = process.env.PG_BIN ?? "/usr/lib/postgresql/15/bin";

export interface RestartTimings {
  /** When `pg_ctl stop` was issued. */
  stopRequestedAt: number;
  /** When the server was fully down (`pg_ctl stop -w` returned). */
  stoppedAt: number;
  /** When `pg_ctl start` was issued (after `downMs`). */
  startRequestedAt: number;
  /** When a fresh connection first answered `select 1`. */
  acceptingAt: number;
}

export interface Cluster {
  port: number;
  /** postgres://postgres@127.0.0.1:PORT/postgres */
  url: string;
  dataDir: string;
  /** The server log (`pg_ctl -l`); read it when a test fails for an unclear reason. */
  logFile: string;
  /** Creates a database and returns its URL. */
  createDatabase: (name: string) => Promise<string>;
  /** Stops with `-m mode`, stays down for `downMs`, starts again; resolves once it accepts connections. */
  restart: (mode: "fast" | "immediate", downMs?: number) => Promise<RestartTimings>;
  /** Stops with `-m fast`; `start()` brings it back. */
  stop: (mode?: "smart" | "fast" | "immediate") => Promise<{ stoppedAt: number }>;
  start: () => Promise<{ acceptingAt: number }>;
  /** Stops with `-m immediate` and deletes the directory. Safe to call more than once. */
  destroy: () => Promise<void>;
  log: () => string;
}

export interface ClusterOptions {
  maxConnections?: number;
  /** Extra postgresql.conf settings, e.g. `{ statement_timeout: "5s" }`. */
  extraConf?: Record<string, string>;
}

const asRoot = process.getuid?.() === 0;

/** PostgreSQL refuses to run as root, so as root every server binary runs as the OS user postgres. */
function pgCommand(bin: string, args: string[]): [string, string[]] {
  const exe = path.join(PG_BIN, bin);
  return asRoot ? ["runuser", ["-u", "postgres", "--", exe, ...args]] : [exe, args];
}

async function pg(bin: string, args: string[]): Promise<string> {
  const [cmd, argv] = pgCommand(bin, args);
  try {
    const { stdout } = await run(cmd, argv, { encoding: "utf8" });
    return stdout;
  } catch (err) {
    const e = err as Error & { stderr?: string; stdout?: string };
    throw new Error(`${bin} ${args.join(" ")} failed: ${e.stderr || e.stdout || e.message}`);
  }
}

const live = new Set<{ root: string; dataDir: string; watchdog?: number }>();
let exitHookInstalled = false;

/** Runs synchronously: on 'exit' nothing asynchronous gets to run. */
function stopAllSync() {
  for (const c of live) {
    try {
      if (existsSync(path.join(c.dataDir, "postmaster.pid"))) {
        const [cmd, argv] = pgCommand("pg_ctl", ["-D", c.dataDir, "-m", "immediate", "-w", "stop"]);
        execFileSync(cmd, argv, { stdio: "ignore", timeout: 10_000 });
      }
    } catch {
      // Best effort: the watchdog below gets another go.
    }
    rmSync(c.root, { recursive: true, force: true });
    if (c.watchdog) killQuietly(c.watchdog);
  }
  live.clear();
}

/** The watchdog leads its own process group (detached), so its `sleep` goes with it. */
function killQuietly(pid: number) {
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // Already gone.
  }
}

function installExitHook() {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on("exit", stopAllSync);
}

/**
 * The 'exit' hook does not run when the test process is SIGKILLed (a vitest worker that times out),
 * so a detached shell outlives us, notices our pid is gone and stops the cluster itself.
 */
function startWatchdog(root: string, dataDir: string): number | undefined {
  const [cmd, argv] = pgCommand("pg_ctl", ["-D", dataDir, "-m", "immediate", "-w", "stop"]);
  const quoted = [cmd, ...argv].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(" ");
  const script = `while kill -0 ${process.pid} 2>/dev/null; do sleep 1; done; ${quoted} >/dev/null 2>&1; rm -rf '${root.replaceAll("'", "'\\''")}'`;
  const child = spawn("sh", ["-c", script], { detached: true, stdio: "ignore" });
  child.unref();
  return child.pid;
}

function confValue(v: string): string {
  return `'${v.replaceAll("\\", "\\\\").replaceAll("'", "''")}'`;
}

async function waitUntilAccepting(url: string, timeoutMs = 30_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    // fetch_types: false because postgres.js 3.4.9 drops the promise of that startup query: a connection
    // reset while it runs (a server going down) becomes an unhandled rejection, which fails a vitest run.
    const sql = postgres(url, { max: 1, connect_timeout: 2, idle_timeout: 1, fetch_types: false, onnotice: () => {} });
    try {
      await sql`select 1`;
      return Date.now();
    } catch (err) {
      last = err;
    } finally {
      await sql.end({ timeout: 1 }).catch(() => {});
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`cluster at ${url} did not accept connections within ${timeoutMs} ms: ${(last as Error)?.message}`);
}

export async function startThrowawayCluster(opts: ClusterOptions = {}): Promise<Cluster> {
  installExitHook();
  const root = mkdtempSync(path.join(tmpdir(), "wl-pg-"));
  const dataDir = path.join(root, "data");
  const logFile = path.join(root, "server.log");
  const entry: { root: string; dataDir: string; watchdog?: number } = { root, dataDir };
  live.add(entry);
  let destroyed = false;

  const destroy = async () => {
    if (destroyed) return;
    destroyed = true;
    try {
      if (existsSync(path.join(dataDir, "postmaster.pid")))
        await pg("pg_ctl", ["-D", dataDir, "-m", "immediate", "-w", "stop"]);
    } catch {
      // Already stopped, or never started.
    }
    rmSync(root, { recursive: true, force: true });
    if (entry.watchdog) killQuietly(entry.watchdog);
    live.delete(entry);
  };

  try {
    if (asRoot) {
      const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
      const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
      chownSync(root, uid, gid);
    }
    await pg("initdb", ["-D", dataDir, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C"]);

    // Settings with arbitrary values go in the file: `pg_ctl -o` is split by a shell, so quoting there is fragile.
    const extra = Object.entries(opts.extraConf ?? {}).map(([k, v]) => `${k} = ${confValue(v)}`);
    if (extra.length)
      appendFileSync(path.join(dataDir, "postgresql.conf"), `\n# test/faults extraConf\n${extra.join("\n")}\n`);

    entry.watchdog = startWatchdog(root, dataDir);
  } catch (err) {
    await destroy();
    throw err;
  }

  let port = 0;
  let url = "";
  const serverOptions = () =>
    [
      `-p ${port}`,
      `-k ${root}`,
      "-c listen_addresses=127.0.0.1",
      // fsync=off only loses data if the OS dies; synchronous_commit stays on, so a commit acknowledged
      // before restart("immediate") survives it, as it would in production.
      "-c fsync=off",
      ...(opts.maxConnections !== undefined ? [`-c max_connections=${opts.maxConnections}`] : []),
    ].join(" ");

  const start = async () => {
    // -l is required: without it the postmaster inherits our pipes and execFile never sees them close.
    await pg("pg_ctl", ["-D", dataDir, "-l", logFile, "-o", serverOptions(), "-w", "-t", "60", "start"]);
    return { acceptingAt: await waitUntilAccepting(url) };
  };
  const stop = async (mode: "smart" | "fast" | "immediate" = "fast") => {
    await pg("pg_ctl", ["-D", dataDir, "-m", mode, "-w", "-t", "60", "stop"]);
    return { stoppedAt: Date.now() };
  };

  // freePort() only says the port was free a moment ago; another process may take it first.
  for (let attempt = 1; ; attempt++) {
    port = await freePort();
    url = `postgres://postgres@127.0.0.1:${port}/postgres`;
    try {
      await start();
      break;
    } catch (err) {
      const log = existsSync(logFile) ? readFileSync(logFile, "utf8") : "";
      if (attempt < 3 && /could not bind|already in use/i.test(log)) continue;
      await destroy();
      throw new Error(`${(err as Error).message}\n${log}`);
    }
  }

  return {
    port,
    url,
    dataDir,
    logFile,
    createDatabase: async (name) => {
      if (!/^[a-z_][a-z0-9_]*$/.test(name))
        throw new Error(`createDatabase: "${name}" is not a plain lower-case identifier`);
      const admin = postgres(url, { max: 1, onnotice: () => {} });
      try {
        await admin.unsafe(`create database ${name}`);
      } finally {
        await admin.end({ timeout: 5 });
      }
      const u = new URL(url);
      u.pathname = `/${name}`;
      return u.toString();
    },
    restart: async (mode, downMs = 0) => {
      const stopRequestedAt = Date.now();
      const { stoppedAt } = await stop(mode);
      if (downMs > 0) await new Promise((r) => setTimeout(r, downMs));
      const startRequestedAt = Date.now();
      const { acceptingAt } = await start();
      return { stopRequestedAt, stoppedAt, startRequestedAt, acceptingAt };
    },
    stop,
    start,
    destroy,
    log: () => (existsSync(logFile) ? readFileSync(logFile, "utf8") : ""),
  };
}
