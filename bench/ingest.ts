/**
 * `npm run bench:ingest [-- --duration 20 --connections 50 --no-build --only app,bare,fastpath,storm-cache --pairs 2 --rate N,N]`
 * Signed Stripe deliveries against the built app (`npm start`: server.ts) and against bench/bare-server.ts (the floor), then a
 * duplicate storm, then checks that every acknowledged event is in the ledger exactly once (`app`, `bare`). Three comparisons
 * follow, each against its own baseline in the same invocation, in alternating rounds (`--pairs`):
 * - `floor`: the 30 % mix against the bare server and the app, each round on fresh servers and databases (the floor
 *   of issue 33 is the app's req/s at least 0.85× the bare server's; one pass of each is at the machine's mercy);
 * - `fastpath`: open-loop new events, claim latency with WORKER_MODE=off vs embedded (and off beside `npm run worker`,
 *   which tells the worker's work in the app's event loop from its work on the same cores);
 * - `storm-cache`: the duplicate storm without vs with the Redis short-circuit (DEDUP_CACHE_URL, BENCH_REDIS_URL).
 * `--only` runs a subset; the default runs everything.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import os from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Redis } from "ioredis";
import postgres from "postgres";
import { migratePostgresUrl } from "@/db/migrate";
import { stripeSubscriptionEvent } from "../test/fixtures/stripe";
import { signStripe } from "../test/sign";
import { pacedLoad, type PacedResult } from "./paced";

const argAt = (name: string) => process.argv.indexOf(`--${name}`);
const argNum = (name: string, def: number, i = argAt(name)) => {
  const v = i > 0 ? Number(process.argv[i + 1]) : def;
  if (!(v > 0)) throw new Error(`--${name} wants a positive number`);
  return v;
};
const DURATION = argNum("duration", 20);
const CONNECTIONS = argNum("connections", 50);
const WARMUP = Math.min(5, DURATION); // JIT and heap growth settle in the first seconds
// Deliveries are signed before each scenario; Stripe's tolerance is 300 s.
if (DURATION > 240) throw new Error("--duration above 240 s would outlive the signatures");
/** Rounds of each paired comparison: A B, B A, A B, …, so a drift of the shared machine falls on both sides. */
const PAIRS = Math.round(argNum("pairs", 2));
/**
 * Offered rate(s) of the fast-path comparison, req/s, comma-separated (one comparison each). Default: the paced
 * scenario's rate (half of what the 30 % mix sustained) and half of that, since processing every event as well
 * needs about 1.8× the CPU of claiming it, so half the mix is not below saturation once the worker runs. Without the
 * mix (`--only fastpath`): 1,300 and 650 req/s.
 */
/** `--variants off,embedded,standalone,nomerge`: which of the worker variants to run (default the first three). */
const VARIANTS = argAt("variants") > 0 ? (process.argv[argAt("variants") + 1] ?? "").split(",") : undefined;
const RATES = argAt("rate") > 0 ? (process.argv[argAt("rate") + 1] ?? "").split(",").map(Number) : undefined;
if (RATES && !(RATES.length > 0 && RATES.every((r) => r > 0)))
  throw new Error("--rate wants positive req/s, comma-separated");
const SCENARIOS = ["app", "bare", "floor", "fastpath", "storm-cache"] as const;
type Scenario = (typeof SCENARIOS)[number];
const ONLY = new Set<string>(
  argAt("only") > 0 ? (process.argv[argAt("only") + 1] ?? "").split(",").filter(Boolean) : SCENARIOS,
);
for (const s of ONLY)
  if (!(SCENARIOS as readonly string[]).includes(s))
    throw new Error(`--only: unknown scenario "${s}" (${SCENARIOS.join(", ")})`);
if (ONLY.size === 0) throw new Error(`--only wants a comma-separated list of ${SCENARIOS.join(", ")}`);
const runs = (s: Scenario) => ONLY.has(s);
const ADMIN_URL = process.env.BENCH_ADMIN_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const REDIS_URL = process.env.BENCH_REDIS_URL ?? "redis://127.0.0.1:6379";
const DEDUP_TTL_SECONDS = "120";
const SECRET = "whsec_bench_0123456789abcdef";
const HOT_IDS = 10;

/** autocannon's result, the shape paced.ts answers in too. */
type AcResult = PacedResult;
interface AcRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Buffer;
}
type Ctx = { req?: Delivery };
type Autocannon = (opts: Record<string, unknown>) => Promise<AcResult>;
const autocannon = createRequire(import.meta.url)("autocannon") as Autocannon;

interface Delivery {
  id: string;
  headers: Record<string, string>;
  body: Buffer;
}
interface Source {
  next: () => Delivery;
  onAck?: (d: Delivery) => void;
}
interface Tally {
  requests: number;
  dups: number;
  lateSigned: number;
  sent: Set<string>;
  acked: Set<string>;
  claims: Map<string, number>;
  /** Non-2xx answers by status, with the first body of each: a failed run should say why. */
  refused: Map<number, { n: number; body: string }>;
}
const tally = (): Tally => ({
  requests: 0,
  dups: 0,
  lateSigned: 0,
  sent: new Set(),
  acked: new Set(),
  claims: new Map(),
  refused: new Map(),
});
const refusals = (t: Tally) =>
  [...t.refused].map(([status, { n, body }]) => `${status} ×${n} (first: ${body.slice(0, 160)})`).join("; ");

// ≈2 KB customer.subscription.updated; 5,000 subscriptions, so entities repeat as in real traffic.
function signed(id: string, n: number): Delivery {
  const key = String(n % 5000).padStart(8, "0");
  const event = stripeSubscriptionEvent({
    eventId: id,
    created: Math.floor(Date.now() / 1000),
    subscriptionId: `sub_1Bench${key}`,
    customerId: `cus_Bench${key}`,
    status: n % 7 === 0 ? "past_due" : "active",
  });
  const d = signStripe(JSON.stringify(event), SECRET);
  return { id, headers: d.headers, body: Buffer.from(d.body) };
}

/** Fresh events are pre-signed so signing is not measured; a run that outgrows the pool signs late (reported). */
function mixSource(prefix: string, presign: number, t: Tally, dupsPerTen = 3): Source {
  const idOf = (n: number) => `${prefix}${n.toString(36).padStart(7, "0")}`;
  const fresh = Array.from({ length: Math.ceil(presign) }, (_, n) => signed(idOf(n), n));
  const ackedPool: Delivery[] = [];
  let [k, n] = [0, 0];
  const next = () => {
    if (k++ % 10 < dupsPerTen && ackedPool.length > 0)
      return (t.dups++, ackedPool[Math.floor(Math.random() * ackedPool.length)]!);
    const d = fresh[n] ?? (t.lateSigned++, signed(idOf(n), n));
    n++;
    return d;
  };
  return { next, onAck: (d) => ackedPool.push(d) };
}

/** Every request a duplicate of one of a few already-claimed ids, round robin. */
function cycleSource(hot: Delivery[], t: Tally): Source {
  let h = 0;
  return { next: () => (t.dups++, hot[h++ % hot.length]!) };
}

async function load(
  port: number,
  connections: number,
  duration: number,
  { next, onAck }: Source,
  t: Tally,
  rate?: number,
): Promise<AcResult> {
  const pick = () => {
    const d = next();
    t.requests++;
    t.sent.add(d.id);
    return d;
  };
  const record = (status: number, body: string, d: Delivery | undefined) => {
    if (status < 200 || status > 299) {
      const seen = t.refused.get(status);
      if (seen) seen.n++;
      else t.refused.set(status, { n: 1, body });
      return;
    }
    if (!d) return;
    if (!t.acked.has(d.id)) onAck?.(d);
    t.acked.add(d.id);
    if (body.includes('"duplicate":false')) t.claims.set(d.id, (t.claims.get(d.id) ?? 0) + 1);
  };
  if (rate)
    return pacedLoad({
      port,
      path: "/api/webhooks/stripe",
      rate,
      duration,
      connections,
      next: pick,
      onResponse: (s, b, d) => record(s, b, d as Delivery),
    });
  return autocannon({
    url: `http://127.0.0.1:${port}/api/webhooks/stripe`,
    connections,
    duration,
    timeout: 10,
    requests: [
      {
        setupRequest: (req: AcRequest, ctx: Ctx): AcRequest => {
          const d = pick();
          ctx.req = d;
          return { ...req, method: "POST", path: "/api/webhooks/stripe", headers: { ...d.headers }, body: d.body };
        },
        onResponse: (status: number, body: string, ctx: Ctx) => record(status, body, ctx.req),
      },
    ],
  });
}

interface Server {
  child: ChildProcess;
  log: () => string;
  notes: () => string[];
}
const children = new Set<ChildProcess>();
/** bench/loop-lag.mjs, preloaded into every server: each reports its own event-loop delay per phase. */
const LOOP_LAG_DIR = mkdtempSync(join(os.tmpdir(), "bench-ingest-lag-"));
const LOOP_LAG_PRELOAD =
  process.env.BENCH_LOOP_LAG === "off"
    ? ""
    : `--import ${pathToFileURL(fileURLToPath(new URL("./loop-lag.mjs", import.meta.url))).href}`;
function startServer(args: string[], env: Record<string, string>): Server {
  let out = "";
  let partial = "";
  const notes: string[] = []; // the dedup cache's state changes (it logs transitions only)
  const child = spawn(args[0]!, args.slice(1), {
    env: {
      ...process.env,
      NEXT_TELEMETRY_DISABLED: "1",
      NODE_ENV: "production",
      ...env,
      NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} ${LOOP_LAG_PRELOAD}`.trim(),
      BENCH_LOOP_LAG_DIR: LOOP_LAG_DIR,
    },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const keep = (b: Buffer) => {
    out = (out + b.toString()).slice(-4000);
    const lines = (partial + b.toString()).split("\n");
    partial = lines.pop()!;
    for (const line of lines) if (line.includes("[dedup-cache]") && notes.length < 1000) notes.push(line);
  };
  [child.stdout, child.stderr].forEach((stream) => stream?.on("data", keep));
  children.add(child);
  return { child, log: () => out, notes: () => notes };
}

async function stopServer(child: ChildProcess): Promise<void> {
  children.delete(child);
  if (child.exitCode !== null || child.signalCode !== null || !child.pid) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const kill = (sig: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, sig);
    } catch {
      /* already gone */
    }
  };
  kill("SIGTERM");
  const timer = setTimeout(() => kill("SIGKILL"), 5000);
  await exited.finally(() => clearTimeout(timer));
}

async function waitHealthy(port: number, path: string, server: Server) {
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (server.child.exitCode !== null) throw new Error(`server exited early:\n${server.log()}`);
    if (
      await fetch(`http://127.0.0.1:${port}${path}`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`server not healthy within 90 s:\n${server.log()}`);
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const srv = createServer().listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === "object" && addr ? resolve(addr.port) : reject(new Error("no port"))));
    });
  });

/** Problems found: an acked event missing, a row nobody sent, an event claimed twice. */
async function verify(url: string, prefix: string, t: Tally, app: boolean): Promise<string[]> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const rows = await sql<
      { event_id: string }[]
    >`select event_id from webhook_event where event_id like ${prefix + "%"}`;
    const inDb = new Set(rows.map((r) => r.event_id));
    const [d] = app
      ? await sql<{ n: number }[]>`select count(*)::int as n from (select event_id from webhook_delivery
        where event_id like ${prefix + "%"} group by event_id having count(*) filter (where claimed) <> 1) x`
      : [];
    const counts: [number, string][] = [
      [[...t.acked].filter((id) => !inDb.has(id)).length, "acknowledged events missing from webhook_event"],
      [[...inDb].filter((id) => !t.sent.has(id)).length, "rows that were never sent"],
      [[...t.claims.values()].filter((c) => c > 1).length, 'events answered "claimed" more than once'],
      [d?.n ?? 0, "events without exactly one claimed delivery row"],
    ];
    const problems = counts.filter(([n]) => n > 0).map(([n, what]) => `${prefix}: ${n} ${what}`);
    console.log(
      `  verify ${prefix}: ${t.acked.size} acknowledged ids, ${inDb.size} rows, ${problems.length ? problems.join("; ") : "exactly once ✓"}`,
    );
    return problems;
  } finally {
    await sql.end({ timeout: 5 });
  }
}

interface Row {
  scenario: string;
  conns: number;
  r: AcResult;
  t: Tally;
  cpu: { srv: number; pg: number; load: number };
  /** The whole machine's CPU busy during the phase, % of all cores (everyone's, not only ours). */
  busy: number;
  /** The load generator's event-loop delay p99, ms. */
  genLag: number;
  /** The (first) server's own event-loop delay p99 and max, ms, when its preload answered. */
  srvLag?: { p99: number; max: number };
}
const rps = (r: AcResult) => r.requests.total / r.duration;

// CPU seconds per request is what contention from other processes distorts least.
const procStat = (pid: string) => {
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  } catch {
    return undefined;
  }
};
const cpuTicks = (pids: string[]) =>
  new Map(
    pids.map((pid) => {
      const f = procStat(pid);
      return [pid, f ? Number(f[11]) + Number(f[12]) : 0];
    }),
  );
const groupPids = (pgid: number) =>
  readdirSync("/proc").filter((d) => /^\d+$/.test(d) && procStat(d)?.[2] === String(pgid));
const ticksSince = (before: Map<string, number>, after: Map<string, number>) =>
  [...after].reduce((sum, [pid, t]) => sum + t - (before.get(pid) ?? 0), 0) * 10; // ms at CLK_TCK 100
/**
 * The server's own event-loop delay since the previous call (ms), from bench/loop-lag.mjs: SIGUSR2 goes only to
 * processes of the group that announced the preload, and the tsx launcher (idle) is left out.
 */
async function serverLoopLag(pgid: number): Promise<{ p99: number; max: number } | undefined> {
  const pids = groupPids(pgid).filter((pid) => {
    try {
      return !readFileSync(join(LOOP_LAG_DIR, `${pid}.ready`), "utf8").includes("tsx/dist/cli");
    } catch {
      return false;
    }
  });
  const out = (pid: string) => join(LOOP_LAG_DIR, `${pid}.json`);
  for (const pid of pids) {
    rmSync(out(pid), { force: true });
    try {
      process.kill(Number(pid), "SIGUSR2");
    } catch {
      /* gone */
    }
  }
  const deadline = Date.now() + 2000;
  const read = () =>
    pids.map((pid) => {
      try {
        return JSON.parse(readFileSync(out(pid), "utf8")) as { p99: number; max: number; n: number };
      } catch {
        return undefined;
      }
    });
  let got = read();
  while (got.some((g) => !g) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 20));
    got = read();
  }
  const busiest = got.filter((g) => g !== undefined).sort((a, b) => b.n - a.n)[0];
  return busiest && { p99: busiest.p99, max: busiest.max };
}
/** [busy, total] jiffies of all cores since boot (idle and iowait count as not busy). */
const machineTicks = (): [number, number] => {
  const f = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
  const total = f.reduce((a, b) => a + b, 0);
  return [total - f[3]! - f[4]!, total];
};

function table(head: string[], lines: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const fmt = (cells: string[]) =>
    `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(" | ")} |`;
  return [
    fmt(head),
    `|${widths.map((w, i) => (i === 0 ? "-" : "") + "-".repeat(w + 1) + (i === 0 ? "" : ":")).join("|")}|`,
    ...lines.map(fmt),
  ].join("\n");
}

function printTable(rows: Row[], bare: AcResult | undefined) {
  const head = [
    "scenario",
    "conns",
    "req/s",
    "p50 ms",
    "p99 ms",
    "non-2xx",
    "errors",
    "dup %",
    "server CPU ms/req",
    "pg CPU ms/req",
    "load gen CPU ms/req",
    "vs bare",
  ];
  console.log(
    table(
      head,
      rows.map(({ scenario, conns, r, t, cpu }) => [
        scenario,
        String(conns),
        rps(r).toFixed(0),
        String(r.latency.p50),
        String(r.latency.p99),
        String(r.non2xx),
        String(r.errors),
        ((100 * t.dups) / Math.max(1, t.requests)).toFixed(0),
        cpu.srv.toFixed(2),
        cpu.pg.toFixed(2),
        cpu.load.toFixed(2),
        bare ? `${((100 * rps(r)) / rps(bare)).toFixed(0)} %` : "",
      ]),
    ),
  );
}

/** One run of a paired comparison: which side, its row, and what else that side reports. */
interface Run {
  variant: string;
  row: Row;
  extra: string;
  redisMsPerReq?: number;
  reachedPg?: number;
}
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/** Means' ratios to the base, and the p99 ratio of each round (a round runs every variant once, back to back). */
type Ratios = { p99: number; p50: number; rps: number; pg: number; p99PerRound: number[] };

/**
 * The runs in the order they ran, then each variant's mean and its ratio to the base. Each round runs every
 * variant once (forwards, then backwards), so the spread of the per-round ratios says how far to trust the mean.
 */
function printComparison(title: string, runsDone: Run[], variants: string[], extraHead: string): Map<string, Ratios> {
  const [base, ...others] = variants as [string, ...string[]];
  console.log(`\n${title}`);
  const head = [
    "run",
    "variant",
    "req/s",
    "p50 ms",
    "p99 ms",
    "non-2xx",
    "errors",
    "server CPU ms/req",
    "pg CPU ms/req",
    "our CPU, cores",
    "machine busy %",
    "server loop p99 / max ms",
    "gen lag p99 ms",
    extraHead,
  ];
  console.log(
    table(
      head,
      runsDone.map(({ variant, row, extra }, i) => [
        String(i + 1),
        variant,
        rps(row.r).toFixed(0),
        String(row.r.latency.p50),
        String(row.r.latency.p99),
        String(row.r.non2xx),
        String(row.r.errors),
        row.cpu.srv.toFixed(2),
        row.cpu.pg.toFixed(2),
        cores(row).toFixed(2),
        row.busy.toFixed(0),
        row.srvLag ? `${row.srvLag.p99.toFixed(0)} / ${row.srvLag.max.toFixed(0)}` : "—",
        row.genLag.toFixed(1),
        extra,
      ]),
    ),
  );
  const m = (v: string, f: (x: Row) => number) => mean(runsDone.filter((x) => x.variant === v).map((x) => f(x.row)));
  const metrics: [string, (x: Row) => number, number][] = [
    ["req/s", (x) => rps(x.r), 0],
    ["p50 ms", (x) => x.r.latency.p50, 1],
    ["p99 ms", (x) => x.r.latency.p99, 1],
    ["server CPU ms/req", (x) => x.cpu.srv, 2],
    ["pg CPU ms/req", (x) => x.cpu.pg, 2],
    ["our CPU, cores", cores, 2],
    ["machine busy %", (x) => x.busy, 0],
    ["server loop p99 ms", (x) => x.srvLag?.p99 ?? NaN, 1],
  ];
  console.log(
    table(
      ["mean over runs", ...variants, ...others.map((o) => `${o} / ${base}`)],
      metrics.map(([name, f, digits]) => [
        name,
        ...variants.map((v) => m(v, f).toFixed(digits)),
        ...others.map((o) => (m(base, f) > 0 ? `${(m(o, f) / m(base, f)).toFixed(2)}×` : "—")),
      ]),
    ),
  );
  const rounds = Array.from({ length: Math.floor(runsDone.length / variants.length) }, (_, k) =>
    runsDone.slice(k * variants.length, (k + 1) * variants.length),
  );
  const ratio = (o: string, f: (x: Row) => number) => m(o, f) / Math.max(1e-9, m(base, f));
  const p99PerRound = (o: string) =>
    rounds.map(
      (rd) =>
        rd.find((x) => x.variant === o)!.row.r.latency.p99 /
        Math.max(1, rd.find((x) => x.variant === base)!.row.r.latency.p99),
    );
  for (const o of others)
    console.log(
      `p99 ${o} / ${base} per round: ${p99PerRound(o)
        .map((x) => `${x.toFixed(2)}×`)
        .join(", ")}`,
    );
  return new Map(
    others.map((o) => [
      o,
      {
        p99: ratio(o, (x) => x.r.latency.p99),
        p50: ratio(o, (x) => x.r.latency.p50),
        rps: ratio(o, (x) => rps(x.r)),
        pg: ratio(o, (x) => x.cpu.pg),
        p99PerRound: p99PerRound(o),
      },
    ]),
  );
}

/** Server, Postgres backends and generator together, in cores: what the bench itself asked of the machine. */
const cores = (x: Row) => (rps(x.r) * (x.cpu.srv + x.cpu.pg + x.cpu.load)) / 1000;

/** PAIRS rounds, each running every variant once: A B, B A, A B, … (A B C, C B A, … for three). */
const alternate = <T>(...variants: T[]): T[] =>
  Array.from({ length: PAIRS }, (_, k) => (k % 2 === 0 ? variants : [...variants].reverse())).flat();

/** Used CPU of the whole Redis server in ms (INFO cpu): it is shared, so other clients' work is in it too. */
async function redisCpuMs(redis: Redis): Promise<number> {
  const info = await redis.info("cpu");
  const field = (k: string) => Number(new RegExp(`^${k}:([\\d.]+)`, "m").exec(info)?.[1] ?? 0);
  return (field("used_cpu_sys") + field("used_cpu_user")) * 1000;
}

async function main() {
  const stamp = Date.now();
  const dbs: string[] = [];
  const urlOf = (db: string) => ADMIN_URL.replace(/\/[^/]*$/, `/${db}`);
  const admin = postgres(ADMIN_URL, { max: 1, onnotice: () => {} });
  let redis: Redis | undefined;
  let cleaning: Promise<void> | undefined;
  const cleanup = () =>
    (cleaning ??= (async () => {
      for (const c of [...children]) await stopServer(c);
      for (const db of dbs) await admin.unsafe(`drop database if exists ${db} with (force)`).catch(() => {});
      await admin.end({ timeout: 5 });
      redis?.disconnect();
      rmSync(LOOP_LAG_DIR, { recursive: true, force: true });
    })());
  process.once("SIGINT", () => void cleanup().finally(() => process.exit(130)));
  // A throw inside a socket handler (the paced generator's) would otherwise leave the detached servers and databases behind.
  process.once("uncaughtException", (err) => {
    console.error(`bench:ingest failed: ${err.stack ?? err.message}`);
    void cleanup().finally(() => process.exit(1));
  });
  const freshDb = async (tag: string) => {
    const db = `ledger_bench_${stamp}_${tag}`;
    dbs.push(db);
    await admin.unsafe(`create database ${db}`);
    await migratePostgresUrl(urlOf(db));
    return db;
  };
  /** bench/bare-server.ts on its own port, healthy; `args` to run it otherwise (a profile). */
  const startBare = async (db: string, args = ["node_modules/.bin/tsx", "bench/bare-server.ts"]) => {
    const port = await freePort();
    const server = startServer(args, { DATABASE_URL: urlOf(db), PORT: String(port) });
    await waitHealthy(port, "/health", server);
    return { port, ...server };
  };
  const startApp = async (db: string, env: Record<string, string>, args = ["node_modules/.bin/tsx", "server.ts"]) => {
    const port = await freePort();
    // Explicit, so nothing in the caller's environment turns on the worker or the cache behind the bench's back.
    const server = startServer(args, {
      DATABASE_URL: urlOf(db),
      STRIPE_WEBHOOK_SECRET: SECRET,
      WORKER_MODE: "off",
      DEDUP_CACHE_URL: "",
      PORT: String(port),
      ...env,
    });
    await waitHealthy(port, "/api/health", server);
    return { port, ...server };
  };
  const count = async (db: string, query: string, prefix: string) => {
    const sql = postgres(urlOf(db), { max: 1, onnotice: () => {} });
    try {
      const [row] = await sql.unsafe<{ n: number }[]>(query, [prefix + "%"]);
      return row?.n ?? 0;
    } finally {
      await sql.end({ timeout: 5 });
    }
  };
  try {
    const [pg] = await admin<{ v: string }[]>`select current_setting('server_version') as v`;
    const cpu = /model name\s*:\s*(.*)/.exec(readFileSync("/proc/cpuinfo", "utf8"))?.[1] ?? os.cpus()[0]?.model;
    console.log(`machine: ${os.availableParallelism()} cores (${cpu}), node ${process.version}, PostgreSQL ${pg?.v}`);
    console.log(
      `load: ${CONNECTIONS} connections × ${DURATION} s per scenario; autocannon runs in this process and shares the cores with the server and Postgres`,
    );
    console.log(`scenarios: ${[...ONLY].join(", ")}; paired comparisons: ${PAIRS} pair(s), alternating A B / B A`);
    console.log(
      `load average before: ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")} (anything else running skews the figures)`,
    );
    if (!process.argv.includes("--no-build") || !existsSync(".next/BUILD_ID"))
      execFileSync("npm", ["run", "build"], { stdio: "inherit" });
    if (runs("storm-cache")) {
      redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
      await redis.connect();
      const info = await redis.info("server");
      console.log(
        `redis: ${/redis_version:(\S+)/.exec(info)?.[1]} at ${REDIS_URL.replace(/\/\/[^@]*@/, "//")} (shared; its CPU below includes other clients)`,
      );
    }
    const rows: Row[] = [];
    const problems: string[] = [];
    // Scenarios in one phase run at once; their server and Postgres CPU is shared out per request.
    // server: the process group(s) whose CPU counts as the server's (the app, and a standalone worker beside it).
    const phase = async (
      port: number,
      server: ChildProcess | ChildProcess[],
      db: string,
      specs: [string, number, Source, Tally][],
      rate?: number,
    ): Promise<Row[]> => {
      const serverPids = () => [server].flat().flatMap((c) => groupPids(c.pid!));
      const backends = async () =>
        (
          await admin<
            { pid: number }[]
          >`select pid from pg_stat_activity where datname = ${db} and backend_type = 'client backend'`
        ).map((r) => String(r.pid));
      const first = [server].flat()[0]!;
      await serverLoopLag(first.pid!); // starts the server's histogram over
      const [srv0, pg0, gen0, m0] = [
        cpuTicks(serverPids()),
        cpuTicks(await backends()),
        process.cpuUsage(),
        machineTicks(),
      ];
      const loop = monitorEventLoopDelay({ resolution: 2 });
      loop.enable();
      const results = await Promise.all(
        specs.map(([, conns, source, t]) => load(port, conns, DURATION, source, t, rate)),
      );
      const n = results.reduce((sum, r) => sum + r.requests.total, 0) || 1;
      const gen = process.cpuUsage(gen0);
      const m1 = machineTicks();
      loop.disable();
      const srvLag = await serverLoopLag(first.pid!);
      // The generator shares the cores: a stalled generator reads as server latency, so say how much it stalled.
      const genLag = loop.percentile(99) / 1e6;
      console.log(
        `  ${specs[0]![0]}: load generator event-loop delay p99 ${genLag.toFixed(1)} ms, max ${(loop.max / 1e6).toFixed(1)} ms;` +
          ` server's ${srvLag ? `p99 ${srvLag.p99.toFixed(1)} ms, max ${srvLag.max.toFixed(1)} ms` : "not reported"}`,
      );
      for (const [scenario, , , t] of specs) if (t.refused.size) console.log(`  ${scenario}: non-2xx ${refusals(t)}`);
      const cpu = {
        srv: ticksSince(srv0, cpuTicks(serverPids())) / n,
        pg: ticksSince(pg0, cpuTicks(await backends())) / n,
        load: (gen.user + gen.system) / 1000 / n,
      };
      const busy = (100 * (m1[0] - m0[0])) / Math.max(1, m1[1] - m0[1]);
      return specs.map(([scenario, conns, , t], i) => ({
        scenario,
        conns,
        t,
        r: results[i]!,
        cpu,
        busy,
        genLag,
        srvLag,
      }));
    };

    const warmThenMix = async (
      port: number,
      server: ChildProcess,
      db: string,
      name: string,
      presignPerSecond: number,
      app: boolean,
    ) => {
      const warm = tally();
      await load(port, CONNECTIONS, WARMUP, mixSource("evt_1BenchWarm", presignPerSecond * WARMUP, warm), warm);
      const mix = tally();
      const [res] = await phase(port, server, db, [
        [name, CONNECTIONS, mixSource("evt_1BenchMix", presignPerSecond * DURATION, mix), mix],
      ]);
      rows.push(res!);
      problems.push(...(await verify(urlOf(db), "evt_1BenchMix", mix, app))); // bare: no delivery rows
      return res!.r;
    };

    /** Pre-claims the hot ids one by one (sequential, so each is claimed before any duplicate of it arrives). */
    const claimHot = async (port: number, prefix: string, t: Tally) => {
      const hot = Array.from({ length: HOT_IDS }, (_, n) => signed(`${prefix}${n}`, n));
      for (const d of hot) {
        const res = await fetch(`http://127.0.0.1:${port}/api/webhooks/stripe`, {
          method: "POST",
          headers: d.headers,
          body: d.body.toString(),
        });
        t.sent.add(d.id);
        const body = await res.text();
        if (res.ok && body.includes('"duplicate":false')) t.claims.set(d.id, 1);
        else
          problems.push(
            `${d.id}: the storm's hot id was not claimed before the storm (${res.status} ${body.slice(0, 160)})`,
          );
      }
      return hot;
    };

    // BENCH_PROFILE=dir writes V8 CPU profiles of the app and the bare server under dir/app and dir/bare.
    const profile = process.env.BENCH_PROFILE;
    const profiled = (dir: string, script: string) => [
      "node",
      "--cpu-prof",
      `--cpu-prof-dir=${dir}`,
      "--import",
      "tsx",
      script,
    ];
    let appRes: AcResult | undefined;
    let stormRes: AcResult | undefined;
    let claimRes: AcResult | undefined;
    let pacedRes: AcResult | undefined;
    let halfRate: number | undefined;
    if (runs("app")) {
      const db = await freshDb("app");
      const app = await startApp(db, {}, profile ? profiled(`${profile}/app`, "server.ts") : undefined);
      appRes = await warmThenMix(app.port, app.child, db, "app: 30 % duplicates", 3000, true);

      const storm = tally();
      let hot = await claimHot(app.port, "evt_1BenchHot", storm);
      const [stormRow] = await phase(app.port, app.child, db, [
        [`app: storm, 100 % dups of ${HOT_IDS} ids`, CONNECTIONS, cycleSource(hot, storm), storm],
      ]);
      rows.push(stormRow!);
      stormRes = stormRow!.r;
      problems.push(...(await verify(urlOf(db), "evt_1BenchHot", storm, true)));

      // The claim path while a storm runs: new events on a fifth of the connections, duplicates on the rest.
      hot = hot.map((d) => ({ ...d, headers: signStripe(d.body.toString(), SECRET).headers })); // a retry: same body, new signature
      const claimConns = Math.max(1, Math.round(CONNECTIONS / 5));
      const [during, storm2] = [tally(), tally()];
      const duringSource = mixSource("evt_1BenchDur", 1500 * DURATION, during, 0);
      const duringRows = await phase(app.port, app.child, db, [
        ["app: new events during a storm", claimConns, duringSource, during],
        ["app: …the storm alongside", CONNECTIONS - claimConns, cycleSource(hot, storm2), storm2],
      ]);
      rows.push(...duringRows);
      claimRes = duringRows[0]!.r;
      problems.push(...(await verify(urlOf(db), "evt_1BenchDur", during, true)));

      // Latency below saturation: the same mix offered at half the rate the app just sustained.
      halfRate = Math.round(rps(appRes) / 2);
      const paced = tally();
      const [pacedRow] = await phase(
        app.port,
        app.child,
        db,
        [
          [
            `app: same mix, open loop at ${halfRate} req/s`,
            CONNECTIONS,
            mixSource("evt_1BenchPace", halfRate * DURATION * 1.1, paced),
            paced,
          ],
        ],
        halfRate,
      );
      rows.push(pacedRow!);
      pacedRes = pacedRow!.r;
      problems.push(...(await verify(urlOf(db), "evt_1BenchPace", paced, true)));
      await stopServer(app.child);
    }

    let bareRes: AcResult | undefined;
    if (runs("bare")) {
      const db = await freshDb("bare");
      const bare = await startBare(db, profile ? profiled(`${profile}/bare`, "bench/bare-server.ts") : undefined);
      bareRes = await warmThenMix(bare.port, bare.child, db, "bare node:http + insert", 5000, false);
      await stopServer(bare.child);
    }

    const floorRatios: number[] = [];
    if (runs("floor")) {
      const floorRuns: Run[] = [];
      for (const [k, variant] of alternate("bare", "app").entries()) {
        const db = await freshDb(`fl${k}`);
        const server = variant === "app" ? await startApp(db, {}) : await startBare(db);
        try {
          const prefix = `evt_1BenchFl${k}m`;
          const warm = tally();
          await load(server.port, CONNECTIONS, WARMUP, mixSource(`evt_1BenchFl${k}w`, 3000 * WARMUP, warm), warm);
          const mix = tally();
          const [row] = await phase(server.port, server.child, db, [
            [`floor: ${variant}, 30 % duplicates`, CONNECTIONS, mixSource(prefix, 3000 * DURATION, mix), mix],
          ]);
          problems.push(...(await verify(urlOf(db), prefix, mix, variant === "app")));
          floorRuns.push({ variant, row: row!, extra: "" });
        } finally {
          await stopServer(server.child);
        }
        await admin.unsafe(`drop database if exists ${db} with (force)`);
      }
      printComparison(
        `floor: the 30 % mix, ${CONNECTIONS} connections, closed loop, bare server against the app`,
        floorRuns,
        ["bare", "app"],
        "",
      );
      for (let k = 0; k + 1 < floorRuns.length; k += 2) {
        const [a, b] = [floorRuns[k]!, floorRuns[k + 1]!];
        const [app, bare] = a.variant === "app" ? [a, b] : [b, a];
        floorRatios.push(rps(app.row.r) / Math.max(1, rps(bare.row.r)));
      }
    }

    // Fast path: the same open-loop load of new events, embedded worker off vs on, and (to tell in-process contention
    // from contention for the cores) off with the same events processed by a standalone worker process beside it.
    // Each run gets a fresh database and server, so no run inherits a table, a backlog or a warm cache from another.
    const fastPath: { rate: number; cmp: Map<string, Ratios> }[] = [];
    const fastRuns: Run[] = [];
    const FP = {
      off: "off",
      on: "embedded",
      standalone: "off + npm run worker",
      nomerge: "embedded, no index merge",
    } as const;
    const fpVariants = (Object.keys(FP) as (keyof typeof FP)[])
      // The index-merge A/B runs only when asked for by name.
      .filter((k) => (VARIANTS ? VARIANTS.includes(k === "on" ? "embedded" : k) : k !== "nomerge"))
      .map((k) => FP[k]);
    const active = `select count(*)::int as n from webhook_event where event_id like $1 and status in ('claimed', 'processing')`;
    const drain = async (db: string, prefix: string, limitMs: number) => {
      const t0 = performance.now();
      while ((await count(db, active, prefix)) > 0 && performance.now() - t0 < limitMs)
        await new Promise((r) => setTimeout(r, 100));
      return performance.now() - t0;
    };
    for (const fpRate of runs("fastpath")
      ? (RATES ?? (halfRate ? [halfRate, Math.round(halfRate / 2)] : [1300, 650]))
      : []) {
      const runsAtRate: Run[] = [];
      for (const variant of alternate<string>(...fpVariants)) {
        const db = await freshDb(`fp${fastRuns.length + runsAtRate.length}`);
        const app = await startApp(db, {
          WORKER_MODE: variant === FP.on || variant === FP.nomerge ? "embedded" : "off",
          ...(variant === FP.nomerge ? { WORKER_INDEX_MERGE_MS: "0" } : {}),
        });
        let worker: Server | undefined;
        try {
          if (variant === FP.standalone) {
            worker = startServer(["node_modules/.bin/tsx", "lib/cli/worker.ts"], {
              DATABASE_URL: urlOf(db),
              STRIPE_WEBHOOK_SECRET: SECRET,
            });
            const deadline = Date.now() + 60_000;
            while (!worker.log().includes(" started:")) {
              if (worker.child.exitCode !== null || Date.now() > deadline)
                throw new Error(`standalone worker did not start:\n${worker.log()}`);
              await new Promise((r) => setTimeout(r, 100));
            }
          }
          const processing = variant !== FP.off;
          // Warm-up at the same pace; where a worker runs, let it finish the warm-up's events before the clock starts.
          const warm = tally();
          await load(
            app.port,
            CONNECTIONS,
            WARMUP,
            mixSource("evt_1BenchFpWarm", fpRate * WARMUP * 1.1, warm, 0),
            warm,
            fpRate,
          );
          if (processing) await drain(db, "evt_1BenchFpWarm", 60_000);
          const t = tally();
          const [row] = await phase(
            app.port,
            worker ? [app.child, worker.child] : app.child,
            db,
            [
              [
                `fast path: ${variant}, new events at ${fpRate} req/s`,
                CONNECTIONS,
                mixSource("evt_1BenchFpRun", fpRate * DURATION * 1.1, t, 0),
                t,
              ],
            ],
            fpRate,
          );
          let extra = "—";
          if (processing) {
            const backlog = await count(db, active, "evt_1BenchFpRun");
            const drainMs = await drain(db, "evt_1BenchFpRun", 120_000);
            const unsettled = await count(
              db,
              `select count(*)::int as n from webhook_event where event_id like $1 and status <> 'settled'`,
              "evt_1BenchFpRun",
            );
            const share = ((100 * backlog) / Math.max(1, t.acked.size)).toFixed(0);
            const drained = (drainMs / 1000).toFixed(1);
            // One lease statement stamps its events' attempts with one now(): events per lease is the batching.
            const leases = await count(
              db,
              `select count(distinct (started_at, actor))::int as n from webhook_attempt where event_id like $1`,
              "evt_1BenchFpRun",
            );
            const perLease = (t.acked.size / Math.max(1, leases)).toFixed(1);
            extra = `${backlog} (${share} %), drained in ${drained} s, ${unsettled} unsettled after; ${perLease} events/lease`;
          }
          problems.push(...(await verify(urlOf(db), "evt_1BenchFpRun", t, true)));
          runsAtRate.push({ variant, row: row!, extra });
        } finally {
          if (worker) await stopServer(worker.child);
          await stopServer(app.child);
        }
        await admin.unsafe(`drop database if exists ${db} with (force)`);
      }
      fastRuns.push(...runsAtRate);
      rows.push(...runsAtRate.map((x) => x.row));
      fastPath.push({
        rate: fpRate,
        cmp: printComparison(
          `fast path: open-loop new events at ${fpRate} req/s, WORKER_MODE=off vs embedded vs off beside` +
            " a standalone worker (WORKER_CONCURRENCY at its default)",
          runsAtRate,
          fpVariants,
          "worker backlog at the end",
        ),
      });
    }

    // The duplicate storm without and with the Redis short-circuit. Event ids are random per invocation: Redis is
    // shared and markers outlive a run (TTL), so a fixed id would be answered from an earlier run's marker.
    let stormCache: Ratios | undefined;
    const cacheRuns: Run[] = [];
    if (runs("storm-cache") && redis) {
      const tag = randomBytes(4).toString("hex");
      const deliveries = `select count(*)::int as n from webhook_delivery where event_id like $1`;
      for (const [k, variant] of alternate("no cache", "redis cache").entries()) {
        const db = await freshDb(`sc${k}`);
        const cached = variant === "redis cache";
        const app = await startApp(
          db,
          cached ? { DEDUP_CACHE_URL: REDIS_URL, DEDUP_CACHE_TTL_SECONDS: DEDUP_TTL_SECONDS } : {},
        );
        try {
          const prefix = `evt_1BenchSc${tag}r${k}h`;
          const storm = tally();
          const hot = await claimHot(app.port, prefix, storm);
          const warm = tally();
          await load(app.port, CONNECTIONS, WARMUP, cycleSource(hot, warm), warm);
          const [d0, r0] = [await count(db, deliveries, prefix), await redisCpuMs(redis)];
          const [row] = await phase(app.port, app.child, db, [
            [`storm-cache: ${variant}, 100 % dups of ${HOT_IDS} ids`, CONNECTIONS, cycleSource(hot, storm), storm],
          ]);
          const [d1, r1] = [await count(db, deliveries, prefix), await redisCpuMs(redis)];
          const n = Math.max(1, row!.r.requests.total);
          const reachedPg = (d1 - d0) / n; // each request that reached the ledger wrote a webhook_delivery row
          const redisMsPerReq = (r1 - r0) / n;
          const trips = app.notes().filter((l) => !/connected|answering again/.test(l));
          const why = new Map<string, number>();
          for (const reason of trips.map((l) =>
            l.replace(/.*dedup cache: /, "").replace(/; answering from the ledger.*/, ""),
          ))
            why.set(reason, (why.get(reason) ?? 0) + 1);
          if (cached)
            console.log(
              `  dedup cache log (warm-up and run): ${trips.length} breaker trips${[...why].map(([w, c]) => `, ${c}× "${w}"`).join("")}`,
            );
          problems.push(...(await verify(urlOf(db), prefix, storm, true)));
          cacheRuns.push({
            variant,
            row: row!,
            reachedPg,
            redisMsPerReq,
            extra: `${(100 * reachedPg).toFixed(1)} % · redis ${redisMsPerReq.toFixed(3)} ms/req · ${trips.length} breaker trips`,
          });
        } finally {
          await stopServer(app.child);
        }
        await admin.unsafe(`drop database if exists ${db} with (force)`);
      }
      rows.push(...cacheRuns.map((x) => x.row));
      stormCache = printComparison(
        `storm-cache: duplicate storm (100 % dups of ${HOT_IDS} ids, ${CONNECTIONS} connections, closed loop) ` +
          `without vs with DEDUP_CACHE_URL (TTL ${DEDUP_TTL_SECONDS} s)`,
        cacheRuns,
        ["no cache", "redis cache"],
        "reached PostgreSQL · redis CPU · breaker trips",
      ).get("redis cache");
    }

    console.log(
      `\nload average after: ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}\n`,
    );
    const mainRows = rows.filter((r) => !fastRuns.some((x) => x.row === r) && !cacheRuns.some((x) => x.row === r));
    if (mainRows.length) printTable(mainRows, bareRes);
    const late = rows.reduce((s, r) => s + r.t.lateSigned, 0);
    if (late) console.log(`note: ${late} deliveries were signed during the run (pre-signed pool exhausted)`);
    const invalid = rows.reduce((s, r) => s + r.r.non2xx + r.r.errors, 0);
    const mark = (ok: boolean) => (ok ? "met" : "MISSED");
    const targets = [
      appRes && bareRes ? `app ≥ 70 % of bare: ${mark(rps(appRes) >= 0.7 * rps(bareRes))}` : "",
      appRes ? `app p99 < 50 ms: ${mark(appRes.latency.p99 < 50)}` : "",
      floorRatios.length
        ? `floor, app ≥ 0.85× bare: ${mark(median(floorRatios) >= 0.85)} (median of ${floorRatios.length} rounds; ` +
          `${floorRatios.map((x) => `${x.toFixed(2)}×`).join(", ")})`
        : "",
      // Per round, not on the means: one saturated run on either side would decide a mean of two.
      ...fastPath.map(({ rate, cmp }) => {
        const rounds = cmp.get(FP.on)?.p99PerRound ?? [];
        if (rounds.length === 0) return "";
        const within = rounds.filter((x) => x <= 1.2).length;
        const verdict =
          within === rounds.length ? "met" : within === 0 ? "MISSED" : `mixed, ${within} of ${rounds.length} rounds`;
        return `fast-path claim p99 at ${rate} req/s, worker on within 20 % of off: ${verdict} (${rounds.map((x) => `${x.toFixed(2)}×`).join(", ")})`;
      }),
      `zero non-2xx: ${mark(invalid === 0)}`,
      `exactly once: ${mark(problems.length === 0)}`,
    ].filter(Boolean);
    console.log(`\ntargets: ${targets.join(" · ")}`);
    if (appRes && stormRes && claimRes) {
      console.log(
        `duplicate storm: ${((100 * rps(stormRes)) / rps(appRes)).toFixed(0)} % of the mix's req/s, p99 ${stormRes.latency.p99} ms` +
          ` vs ${appRes.latency.p99} ms; new events during the storm: p99 ${claimRes.latency.p99} ms`,
      );
    }
    if (pacedRes)
      console.log(
        `below saturation (${halfRate} req/s offered at a steady pace, open loop): p50 ${pacedRes.latency.p50} ms, p99 ${pacedRes.latency.p99} ms`,
      );
    for (const { rate, cmp } of fastPath) {
      for (const [variant, r] of cmp) {
        console.log(
          `fast path at ${rate} req/s, ${variant} / off (mean of ${PAIRS} each): claim p50 ${r.p50.toFixed(2)}×, p99 ${r.p99.toFixed(2)}×,` +
            ` req/s ${r.rps.toFixed(2)}×, pg CPU per request ${r.pg.toFixed(2)}×`,
        );
      }
    }
    if (stormCache) {
      const reached = mean(cacheRuns.filter((x) => x.variant === "redis cache").map((x) => x.reachedPg ?? 0));
      console.log(
        `storm with the Redis short-circuit / without (mean of ${PAIRS} each): req/s ${stormCache.rps.toFixed(2)}×, p99 ${stormCache.p99.toFixed(2)}×,` +
          ` pg CPU per request ${stormCache.pg.toFixed(2)}×; ${(100 * reached).toFixed(1)} % of cached-side requests still reached PostgreSQL`,
      );
    }
    if (invalid || problems.length) {
      console.error(
        `FAILED: ${invalid} valid deliveries without a 2xx; ${problems.join("; ") || "no ledger problems"}`,
      );
      process.exitCode = 1;
    }
  } finally {
    await cleanup();
  }
}

await main().catch((err: unknown) => {
  console.error(`bench:ingest failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
});
