/**
 * `npm run bench:ingest [-- --duration 20 --connections 50 --no-build]`
 * Signed Stripe deliveries against the built app (`npm start`: server.ts) and against bench/bare-server.ts (the floor), then a
 * duplicate storm, then checks that every acknowledged event is in the ledger exactly once.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import os from "node:os";
import { monitorEventLoopDelay } from "node:perf_hooks";
import postgres from "postgres";
import { migratePostgresUrl } from "@/db/migrate";
import { stripeSubscriptionEvent } from "../test/fixtures/stripe";
import { signStripe } from "../test/sign";
import { pacedLoad } from "./paced";

const argNum = (name: string, def: number, i = process.argv.indexOf(`--${name}`)) => {
  const v = i > 0 ? Number(process.argv[i + 1]) : def;
  if (!(v > 0)) throw new Error(`--${name} wants a positive number`);
  return v;
};
const DURATION = argNum("duration", 20);
const CONNECTIONS = argNum("connections", 50);
const WARMUP = Math.min(5, DURATION); // JIT and heap growth settle in the first seconds
// Deliveries are signed before each scenario; Stripe's tolerance is 300 s.
if (DURATION > 240) throw new Error("--duration above 240 s would outlive the signatures");
const ADMIN_URL = process.env.BENCH_ADMIN_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const SECRET = "whsec_bench_0123456789abcdef";
const HOT_IDS = 10;

interface AcResult { duration: number; errors: number; non2xx: number; latency: { p50: number; p99: number }; requests: { total: number } }
interface AcRequest { method: string; path: string; headers: Record<string, string>; body: Buffer }
type Ctx = { req?: Delivery };
type Autocannon = (opts: Record<string, unknown>) => Promise<AcResult>;
const autocannon = createRequire(import.meta.url)("autocannon") as Autocannon;

interface Delivery { id: string; headers: Record<string, string>; body: Buffer }
interface Source { next: () => Delivery; onAck?: (d: Delivery) => void }
interface Tally { requests: number; dups: number; lateSigned: number; sent: Set<string>; acked: Set<string>; claims: Map<string, number> }
const tally = (): Tally => ({ requests: 0, dups: 0, lateSigned: 0, sent: new Set(), acked: new Set(), claims: new Map() });

// ≈2 KB customer.subscription.updated; 5,000 subscriptions, so entities repeat as in real traffic.
function signed(id: string, n: number): Delivery {
  const key = String(n % 5000).padStart(8, "0");
  const event = stripeSubscriptionEvent({ eventId: id, created: Math.floor(Date.now() / 1000), subscriptionId: `sub_1Bench${key}`,
    customerId: `cus_Bench${key}`, status: n % 7 === 0 ? "past_due" : "active" });
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
    if (k++ % 10 < dupsPerTen && ackedPool.length > 0) return (t.dups++, ackedPool[Math.floor(Math.random() * ackedPool.length)]!);
    const d = fresh[n] ?? (t.lateSigned++, signed(idOf(n), n));
    n++;
    return d;
  };
  return { next, onAck: (d) => ackedPool.push(d) };
}

async function load(port: number, connections: number, duration: number, { next, onAck }: Source, t: Tally, rate?: number): Promise<AcResult> {
  const pick = () => {
    const d = next();
    t.requests++;
    t.sent.add(d.id);
    return d;
  };
  const record = (status: number, body: string, d: Delivery | undefined) => {
    if (!d || status < 200 || status > 299) return;
    if (!t.acked.has(d.id)) onAck?.(d);
    t.acked.add(d.id);
    if (body.includes('"duplicate":false')) t.claims.set(d.id, (t.claims.get(d.id) ?? 0) + 1);
  };
  if (rate) return pacedLoad({ port, path: "/api/webhooks/stripe", rate, duration, connections, next: pick, onResponse: (s, b, d) => record(s, b, d as Delivery) });
  return autocannon({
    url: `http://127.0.0.1:${port}/api/webhooks/stripe`, connections, duration, timeout: 10,
    requests: [{
      setupRequest: (req: AcRequest, ctx: Ctx): AcRequest => {
        const d = pick();
        ctx.req = d;
        return { ...req, method: "POST", path: "/api/webhooks/stripe", headers: { ...d.headers }, body: d.body };
      },
      onResponse: (status: number, body: string, ctx: Ctx) => record(status, body, ctx.req),
    }],
  });
}

const children = new Set<ChildProcess>();
function startServer(args: string[], env: Record<string, string>): { child: ChildProcess; log: () => string } {
  let out = "";
  const child = spawn(args[0]!, args.slice(1), {
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", NODE_ENV: "production", ...env },
    detached: true, stdio: ["ignore", "pipe", "pipe"],
  });
  const keep = (b: Buffer) => void (out = (out + b.toString()).slice(-4000));
  [child.stdout, child.stderr].forEach((stream) => stream?.on("data", keep));
  children.add(child);
  return { child, log: () => out };
}

async function stopServer(child: ChildProcess): Promise<void> {
  children.delete(child);
  if (child.exitCode !== null || child.signalCode !== null || !child.pid) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const kill = (sig: NodeJS.Signals) => { try { process.kill(-child.pid!, sig); } catch { /* already gone */ } };
  kill("SIGTERM");
  const timer = setTimeout(() => kill("SIGKILL"), 5000);
  await exited.finally(() => clearTimeout(timer));
}

async function waitHealthy(port: number, path: string, server: { child: ChildProcess; log: () => string }) {
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (server.child.exitCode !== null) throw new Error(`server exited early:\n${server.log()}`);
    if (await fetch(`http://127.0.0.1:${port}${path}`).then((r) => r.ok, () => false)) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`server not healthy within 90 s:\n${server.log()}`);
}

const freePort = () => new Promise<number>((resolve, reject) => {
  const srv = createServer().listen(0, "127.0.0.1", () => {
    const addr = srv.address();
    srv.close(() => (typeof addr === "object" && addr ? resolve(addr.port) : reject(new Error("no port"))));
  });
});

/** Problems found: an acked event missing, a row nobody sent, an event claimed twice. */
async function verify(url: string, prefix: string, t: Tally, app: boolean): Promise<string[]> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const rows = await sql<{ event_id: string }[]>`select event_id from webhook_event where event_id like ${prefix + "%"}`;
    const inDb = new Set(rows.map((r) => r.event_id));
    const [d] = app ? await sql<{ n: number }[]>`select count(*)::int as n from (select event_id from webhook_delivery
        where event_id like ${prefix + "%"} group by event_id having count(*) filter (where claimed) <> 1) x` : [];
    const counts: [number, string][] = [
      [[...t.acked].filter((id) => !inDb.has(id)).length, "acknowledged events missing from webhook_event"],
      [[...inDb].filter((id) => !t.sent.has(id)).length, "rows that were never sent"],
      [[...t.claims.values()].filter((c) => c > 1).length, 'events answered "claimed" more than once'],
      [d?.n ?? 0, "events without exactly one claimed delivery row"],
    ];
    const problems = counts.filter(([n]) => n > 0).map(([n, what]) => `${prefix}: ${n} ${what}`);
    console.log(`  verify ${prefix}: ${t.acked.size} acknowledged ids, ${inDb.size} rows, ${problems.length ? problems.join("; ") : "exactly once ✓"}`);
    return problems;
  } finally {
    await sql.end({ timeout: 5 });
  }
}

interface Row { scenario: string; conns: number; r: AcResult; t: Tally; cpu: { srv: number; pg: number; load: number } }
const rps = (r: AcResult) => r.requests.total / r.duration;

// CPU seconds per request is what contention from other processes distorts least.
const procStat = (pid: string) => { try { return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" "); } catch { return undefined; } };
const cpuTicks = (pids: string[]) => new Map(pids.map((pid) => { const f = procStat(pid); return [pid, f ? Number(f[11]) + Number(f[12]) : 0]; }));
const groupPids = (pgid: number) => readdirSync("/proc").filter((d) => /^\d+$/.test(d) && procStat(d)?.[2] === String(pgid));
const ticksSince = (before: Map<string, number>, after: Map<string, number>) =>
  [...after].reduce((sum, [pid, t]) => sum + t - (before.get(pid) ?? 0), 0) * 10; // ms at CLK_TCK 100

function printTable(rows: Row[], bare: AcResult | undefined) {
  const head = ["scenario", "conns", "req/s", "p50 ms", "p99 ms", "non-2xx", "errors", "dup %", "server CPU ms/req", "pg CPU ms/req", "load gen CPU ms/req", "vs bare"];
  const lines = rows.map(({ scenario, conns, r, t, cpu }) => [
    scenario, String(conns), rps(r).toFixed(0), String(r.latency.p50), String(r.latency.p99), String(r.non2xx),
    String(r.errors), ((100 * t.dups) / Math.max(1, t.requests)).toFixed(0), cpu.srv.toFixed(2), cpu.pg.toFixed(2), cpu.load.toFixed(2),
    bare ? `${((100 * rps(r)) / rps(bare)).toFixed(0)} %` : "",
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const fmt = (cells: string[]) => `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(" | ")} |`;
  console.log([fmt(head), `|${widths.map((w, i) => (i === 0 ? "-" : "") + "-".repeat(w + 1) + (i === 0 ? "" : ":")).join("|")}|`, ...lines.map(fmt)].join("\n"));
}

async function main() {
  const stamp = Date.now();
  const dbs = { app: `ledger_bench_${stamp}_app`, bare: `ledger_bench_${stamp}_bare` };
  const urlOf = (db: string) => ADMIN_URL.replace(/\/[^/]*$/, `/${db}`);
  const admin = postgres(ADMIN_URL, { max: 1, onnotice: () => {} });
  let cleaning: Promise<void> | undefined;
  const cleanup = () => (cleaning ??= (async () => {
    for (const c of [...children]) await stopServer(c);
    for (const db of Object.values(dbs)) await admin.unsafe(`drop database if exists ${db} with (force)`).catch(() => {});
    await admin.end({ timeout: 5 });
  })());
  process.once("SIGINT", () => void cleanup().finally(() => process.exit(130)));
  try {
    const [pg] = await admin<{ v: string }[]>`select current_setting('server_version') as v`;
    const cpu = /model name\s*:\s*(.*)/.exec(readFileSync("/proc/cpuinfo", "utf8"))?.[1] ?? os.cpus()[0]?.model;
    console.log(`machine: ${os.availableParallelism()} cores (${cpu}), node ${process.version}, PostgreSQL ${pg?.v}`);
    console.log(`load: ${CONNECTIONS} connections × ${DURATION} s per scenario; autocannon runs in this process and shares the cores with the server and Postgres`);
    console.log(`load average before: ${os.loadavg().map((l) => l.toFixed(2)).join(" ")} (anything else running skews the figures)`);
    if (!process.argv.includes("--no-build") || !existsSync(".next/BUILD_ID")) execFileSync("npm", ["run", "build"], { stdio: "inherit" });
    for (const db of Object.values(dbs)) {
      await admin.unsafe(`create database ${db}`);
      await migratePostgresUrl(urlOf(db));
    }
    const rows: Row[] = [];
    const problems: string[] = [];
    // Scenarios in one phase run at once; their server and Postgres CPU is shared out per request.
    const phase = async (port: number, server: ChildProcess, db: string, specs: [string, number, Source, Tally][], rate?: number) => {
      const backends = async () => (await admin<{ pid: number }[]>`select pid from pg_stat_activity where datname = ${db} and backend_type = 'client backend'`).map((r) => String(r.pid));
      const [srv0, pg0, gen0] = [cpuTicks(groupPids(server.pid!)), cpuTicks(await backends()), process.cpuUsage()];
      const loop = monitorEventLoopDelay({ resolution: 2 });
      loop.enable();
      const results = await Promise.all(specs.map(([, conns, source, t]) => load(port, conns, DURATION, source, t, rate)));
      const n = results.reduce((sum, r) => sum + r.requests.total, 0) || 1;
      const gen = process.cpuUsage(gen0);
      loop.disable();
      // The generator shares the cores: a stalled generator reads as server latency, so say how much it stalled.
      console.log(`  ${specs[0]![0]}: load generator event-loop delay p99 ${(loop.percentile(99) / 1e6).toFixed(1)} ms, max ${(loop.max / 1e6).toFixed(1)} ms`);
      const cpu = { srv: ticksSince(srv0, cpuTicks(groupPids(server.pid!))) / n, pg: ticksSince(pg0, cpuTicks(await backends())) / n,
        load: (gen.user + gen.system) / 1000 / n };
      specs.forEach(([scenario, conns, , t], i) => rows.push({ scenario, conns, t, r: results[i]!, cpu }));
      return results;
    };

    const warmThenMix = async (port: number, server: ChildProcess, db: string, name: string, presignPerSecond: number) => {
      const warm = tally();
      await load(port, CONNECTIONS, WARMUP, mixSource("evt_1BenchWarm", presignPerSecond * WARMUP, warm), warm);
      const mix = tally();
      const [res] = await phase(port, server, db, [[name, CONNECTIONS, mixSource("evt_1BenchMix", presignPerSecond * DURATION, mix), mix]]);
      problems.push(...(await verify(urlOf(db), "evt_1BenchMix", mix, db === dbs.app)));
      return res!;
    };

    const appPort = await freePort();
    // BENCH_APP_PROFILE=dir writes a V8 CPU profile of the app alone there.
    const profile = process.env.BENCH_APP_PROFILE;
    const app = startServer(profile ? ["node", "--cpu-prof", `--cpu-prof-dir=${profile}`, "--import", "tsx", "server.ts"] : ["node_modules/.bin/tsx", "server.ts"],
      { DATABASE_URL: urlOf(dbs.app), STRIPE_WEBHOOK_SECRET: SECRET, WORKER_MODE: "off", PORT: String(appPort),
 });
    await waitHealthy(appPort, "/api/health", app);
    const appRes = await warmThenMix(appPort, app.child, dbs.app, "app: 30 % duplicates", 3000);

    let hot = Array.from({ length: HOT_IDS }, (_, n) => signed(`evt_1BenchHot${n}`, n));
    const storm = tally();
    for (const d of hot) {
      const res = await fetch(`http://127.0.0.1:${appPort}/api/webhooks/stripe`, { method: "POST", headers: d.headers, body: d.body.toString() });
      storm.sent.add(d.id);
      if (res.ok && (await res.text()).includes('"duplicate":false')) storm.claims.set(d.id, 1);
    }
    let h = 0;
    const hotSource = (t: Tally): Source => ({ next: () => (t.dups++, hot[h++ % HOT_IDS]!) });
    const stormRes = (await phase(appPort, app.child, dbs.app, [[`app: storm, 100 % dups of ${HOT_IDS} ids`, CONNECTIONS, hotSource(storm), storm]]))[0]!;
    problems.push(...(await verify(urlOf(dbs.app), "evt_1BenchHot", storm, true)));

    // The claim path while a storm runs: new events on a fifth of the connections, duplicates on the rest.
    hot = hot.map((d) => ({ ...d, headers: signStripe(d.body.toString(), SECRET).headers })); // a retry: same body, new signature
    const claimConns = Math.max(1, Math.round(CONNECTIONS / 5));
    const [during, storm2] = [tally(), tally()];
    const duringSource = mixSource("evt_1BenchDur", 1500 * DURATION, during, 0);
    const claimRes = (await phase(appPort, app.child, dbs.app, [
      ["app: new events during a storm", claimConns, duringSource, during],
      ["app: …the storm alongside", CONNECTIONS - claimConns, hotSource(storm2), storm2],
    ]))[0]!;
    problems.push(...(await verify(urlOf(dbs.app), "evt_1BenchDur", during, true)));

    // Latency below saturation: the same mix offered at half the rate the app just sustained.
    const halfRate = Math.round(rps(appRes) / 2);
    const paced = tally();
    const pacedRes = (await phase(appPort, app.child, dbs.app, [[`app: same mix, open loop at ${halfRate} req/s`, CONNECTIONS, mixSource("evt_1BenchPace", halfRate * DURATION * 1.1, paced), paced]], halfRate))[0]!;
    problems.push(...(await verify(urlOf(dbs.app), "evt_1BenchPace", paced, true)));
    await stopServer(app.child);

    const barePort = await freePort();
    const bare = startServer(["node_modules/.bin/tsx", "bench/bare-server.ts"], { DATABASE_URL: urlOf(dbs.bare), PORT: String(barePort) });
    await waitHealthy(barePort, "/health", bare);
    const bareRes = await warmThenMix(barePort, bare.child, dbs.bare, "bare node:http + insert", 5000);
    await stopServer(bare.child);

    console.log(`load average after: ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}\n`);
    printTable(rows, bareRes);
    const late = rows.reduce((s, r) => s + r.t.lateSigned, 0);
    if (late) console.log(`note: ${late} deliveries were signed during the run (pre-signed pool exhausted)`);
    const invalid = rows.reduce((s, r) => s + r.r.non2xx + r.r.errors, 0);
    const mark = (ok: boolean) => (ok ? "met" : "MISSED");
    console.log(`\ntargets: app ≥ 70 % of bare: ${mark(rps(appRes) >= 0.7 * rps(bareRes))} · app p99 < 50 ms: ${mark(appRes.latency.p99 < 50)}` +
      ` · zero non-2xx: ${mark(invalid === 0)} · exactly once: ${mark(problems.length === 0)}`);
    console.log(`duplicate storm: ${((100 * rps(stormRes)) / rps(appRes)).toFixed(0)} % of the mix's req/s, p99 ${stormRes.latency.p99} ms` +
      ` vs ${appRes.latency.p99} ms; new events during the storm: p99 ${claimRes.latency.p99} ms`);
    console.log(`below saturation (${halfRate} req/s offered at a steady pace, open loop): p50 ${pacedRes.latency.p50} ms, p99 ${pacedRes.latency.p99} ms`);
    if (invalid || problems.length) {
      console.error(`FAILED: ${invalid} valid deliveries without a 2xx; ${problems.join("; ") || "no ledger problems"}`);
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
