/** Child processes for `npm run bench:worker`: standalone workers, graphile-worker, pgbench. */
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";

/** CPU seconds (user + system, all threads) a live process has used; undefined once it is gone. */
export function cpuSeconds(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, in USER_HZ (100 on Linux)
  } catch {
    return undefined;
  }
}

export interface Child {
  child: ChildProcess;
  label: string;
  /** performance.now() when the child printed "started:". */
  started: Promise<number>;
  exited: Promise<number | null>;
  /** The whole stdout+stderr so far (capped). */
  output: () => string;
  /** Throws if the child is gone (call while waiting on it). */
  assertAlive: () => void;
  /** CPU seconds used since it printed "started:" (start-up excluded); read it before stopping the child. */
  cpuSinceStarted: () => number | undefined;
}

const live = new Set<Child>();

export function startChild(label: string, command: string, args: string[], env: Record<string, string>): Child {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let startedAt: number | undefined;
  let cpuAtStart: number | undefined;
  let resolveStarted: (t: number) => void = () => {};
  let rejectStarted: (err: Error) => void = () => {};
  const started = new Promise<number>((resolve, reject) => {
    resolveStarted = resolve;
    rejectStarted = reject;
  });
  started.catch(() => {}); // handled by whoever awaits it; a child that never starts must not crash the run
  const keep = (b: Buffer) => {
    out += b.toString();
    if (out.length > 200_000) out = out.slice(-100_000);
    if (startedAt === undefined && out.includes("started:")) {
      cpuAtStart = cpuSeconds(child.pid);
      resolveStarted((startedAt = performance.now()));
    }
  };
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  const exited = new Promise<number | null>((resolve) => {
    const gone = (code: number | null) => {
      live.delete(handle);
      rejectStarted(new Error(`${label} exited (${code}) before starting:\n${out.slice(-3000)}`));
      resolve(code);
    };
    child.once("exit", gone);
    // spawn failures (e.g. ENOENT: pgbench not installed) arrive here instead of "exit".
    child.once("error", (err) => {
      out += `\n${label}: ${err.message}`;
      gone(-1);
    });
  });
  const handle: Child = {
    child,
    label,
    started,
    exited,
    output: () => out,
    assertAlive: () => {
      if (child.exitCode !== null || child.signalCode !== null || !live.has(handle))
        throw new Error(`${label} died (${child.exitCode ?? child.signalCode}):\n${out.slice(-3000)}`);
    },
    cpuSinceStarted: () => {
      const now = cpuSeconds(child.pid);
      return now === undefined ? undefined : now - (cpuAtStart ?? 0);
    },
  };
  live.add(handle);
  return handle;
}

/** `npm run worker`'s node arguments, from package.json: the benchmark runs the command a deployment runs. */
export function workerNodeArgs(): string[] {
  const pkg = JSON.parse(readFileSync("package.json", "utf8")) as { scripts: Record<string, string> };
  const [node, ...args] = (pkg.scripts.worker ?? "").split(/\s+/).filter(Boolean);
  if (node !== "node" || !args.includes("lib/cli/worker.ts"))
    throw new Error(`package.json's worker script is not "node … lib/cli/worker.ts": ${pkg.scripts.worker}`);
  return args;
}

/**
 * `npm run worker` as node runs it (without npm in between). BENCH_WORKER_NODE_ARGS adds node flags to each
 * worker (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`, which NODE_OPTIONS refuses).
 */
export function startWorker(url: string, label: string, env: Record<string, string> = {}): Child {
  const extra = (process.env.BENCH_WORKER_NODE_ARGS ?? "").split(" ").filter(Boolean);
  return startChild(label, process.execPath, [...extra, ...workerNodeArgs()], {
    DATABASE_URL: url,
    ...env,
  });
}

/** SIGTERM (the worker finishes in-flight work), SIGKILL after 15 s. Only this child, by its pid. */
export async function stopChild(c: Child): Promise<number | null> {
  if (c.child.exitCode === null && c.child.signalCode === null) {
    c.child.kill("SIGTERM");
    const timer = setTimeout(() => c.child.kill("SIGKILL"), 15_000);
    const code = await c.exited;
    clearTimeout(timer);
    return code;
  }
  return c.child.exitCode;
}

export async function stopAllChildren(): Promise<void> {
  await Promise.all([...live].map((c) => stopChild(c)));
}
