/**
 * `npm run bench:backlog [-- --backlog 1000000 --rate 200 --connections 50 --window 15 --baseline-seconds 60 --no-baseline]`
 *
 * Backlog recovery (issue 15, part 4). A fresh database holds `--backlog` claimed Stripe
 * `customer.subscription.updated` events (≈2 KB bodies, seeded set-based by bench/worker-db.ts's seedClaimed, plus
 * the claimed webhook_delivery row the receiver would have written for each). The real app process
 * (lib/cli/receiver.ts, what `npm run receiver` runs: the intake with the embedded worker, default settings) drains
 * it while new signed deliveries keep arriving over HTTP at a steady `--rate` (bench/paced.ts, open loop: latency
 * runs from when a request was due), until the seed is settled and nothing is pending more than 5 s past due.
 * Reported: the drain time (first lease → last settle of the seed) and events/s, the time until caught up, and the
 * claim latency of the paced deliveries during the drain against the same paced load with no backlog (the
 * baseline, run before and after in the same invocation, each on its own fresh database and receiver), as
 * p99(during) / p99(baseline), and whether claims starved (any non-2xx, or an answer slower than
 * WEBHOOK_CLAIM_TIMEOUT_MS). Afterwards every seeded and every paced event must be settled exactly once
 * (bench/worker-db.ts's verifyLedger, plus the receiver's exactly-once checks from bench/ingest.ts).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import os from "node:os";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { parseEnv } from "@/lib/env";
import { DEFAULT_BATCH_SIZE } from "@/lib/worker/settings";
import { stripeSubscriptionEvent } from "../test/fixtures/stripe";
import { nowSeconds, signStripe } from "../test/sign";
import { pacedLoad, type PacedDelivery } from "./paced";
import {
  backendCpu,
  connect,
  dropAllCreated,
  machineLine,
  seedClaimed,
  settleDb,
  sleep,
  verifyLedger,
  withFreshDb,
  type LedgerCheck,
} from "./worker-db";
import { cpuSeconds } from "./worker-procs";

const argAt = (name: string) => process.argv.indexOf(`--${name}`);
const argNum = (name: string, def: number) => {
  const i = argAt(name);
  const v = i > 0 ? Number(process.argv[i + 1]) : def;
  if (!(v > 0)) throw new Error(`--${name} wants a positive number`);
  return v;
};
const BACKLOG = Math.round(argNum("backlog", 1_000_000));
const RATE = argNum("rate", 200);
const CONNECTIONS = Math.round(argNum("connections", 50));
/** Paced load runs in windows of this many seconds, each pre-signed just before it starts (Stripe's tolerance is 300 s). */
const WINDOW_S = argNum("window", 15);
const BASELINE_S = argNum("baseline-seconds", 60);
const WARMUP_S = 5;
const BASELINE = !process.argv.includes("--no-baseline");
const DRAIN_LIMIT_MS = argNum("drain-limit-minutes", 40) * 60_000;
const SECRET = "whsec_bench_0123456789abcdef";
/** seedClaimed's event ids. */
const SEED_PREFIX = "evt_1BenchW";
const RECEIVER_ENV: Record<string, string> = {
  STRIPE_WEBHOOK_SECRET: SECRET,
  WORKER_MODE: "embedded",
  DEDUP_CACHE_URL: "",
  NODE_ENV: "production",
  HOST: "127.0.0.1",
};
const settings = parseEnv({ ...process.env, ...RECEIVER_ENV, DATABASE_URL: undefined });
const CLAIM_TIMEOUT_MS = settings.WEBHOOK_CLAIM_TIMEOUT_MS;

const fmt = (n: number | null, digits = 0) =>
  n === null || !Number.isFinite(n)
    ? "—"
    : n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });
const ms = (n: number | null) => fmt(n, n !== null && n < 10 ? 1 : 0);
const loadavg = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");

// ---------------------------------------------------------------------------------------------- the receiver

interface Receiver {
  child: ChildProcess;
  port: number;
  pid: number;
  tail: () => string;
  /** Warn/error/fatal log lines (the first 20) and their count; batches settled. */
  warnings: { n: number; first: string[] };
  batches: { loop: number; loopEvents: number; yields: number; yieldMs: number };
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const srv = createServer().listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === "object" && addr ? resolve(addr.port) : reject(new Error("no port"))));
    });
  });

const receivers = new Set<ChildProcess>();

/**
 * lib/cli/receiver.ts as `node --import tsx`, which is what `npm run receiver` (`tsx lib/cli/receiver.ts`) runs,
 * without the tsx launcher in between: one process, so its pid is the app's and its CPU is the app's. Default log
 * level (info, JSON), as deployed: the per-batch lines are the app's cost too. Output is scanned line by line and
 * only a tail is kept.
 */
async function startReceiver(url: string): Promise<Receiver> {
  const port = await freePort();
  const child = spawn(process.execPath, ["--import", "tsx", "lib/cli/receiver.ts"], {
    env: { ...process.env, ...RECEIVER_ENV, DATABASE_URL: url, PORT: String(port) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  receivers.add(child);
  child.once("exit", () => receivers.delete(child));
  let tail = "";
  let partial = "";
  const warnings = { n: 0, first: [] as string[] };
  const batches = { loop: 0, loopEvents: 0, yields: 0, yieldMs: 0 };
  const keep = (b: Buffer) => {
    const text = b.toString();
    tail = (tail + text).slice(-6000);
    const lines = (partial + text).split("\n");
    partial = lines.pop()!;
    for (const line of lines) {
      if (line.includes('yielding to the intake"')) {
        batches.yields++;
        batches.yieldMs += Number(/"pauseMs":(\d+)/.exec(line)?.[1] ?? 0);
      } else if (line.includes('batch settled"')) {
        batches.loop++;
        batches.loopEvents += Number(/"count":(\d+)/.exec(line)?.[1] ?? 0);
      } else if (/"level":"(warn|error|fatal)"/.test(line)) {
        warnings.n++;
        if (warnings.first.length < 20) warnings.first.push(line.slice(0, 400));
      }
    }
  };
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  const r: Receiver = { child, port, pid: child.pid!, tail: () => tail, warnings, batches };
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`receiver exited early:\n${tail}`);
    const ok = await fetch(`http://127.0.0.1:${port}/api/health`).then(
      (res) => res.ok,
      () => false,
    );
    if (ok) return r;
    if (Date.now() > deadline) throw new Error(`receiver not healthy within 90 s:\n${tail}`);
    await sleep(200);
  }
}

/** SIGTERM (intake stops, in-flight batches settle, pools close), SIGKILL after 20 s. Only this child, by its pid. */
async function stopReceiver(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
  const code = await exited;
  clearTimeout(timer);
  return code;
}

// ------------------------------------------------------------------------------------------- the paced load

interface Tally {
  sent: Set<string>;
  acked: Set<string>;
  /** Answers saying "duplicate":false, per id: more than one is a second claim. */
  claims: Map<string, number>;
  refused: Map<number, { n: number; body: string }>;
}
const tally = (): Tally => ({ sent: new Set(), acked: new Set(), claims: new Map(), refused: new Map() });

interface Sample {
  /** When the request was due (performance.now()). */
  due: number;
  ms: number;
  status: number;
}

interface Delivery extends PacedDelivery {
  id: string;
}

/**
 * ≈2 KB customer.subscription.updated over 5,000 subscriptions of their own (not the backlog's). The version
 * (event.created) is a fixed base plus the event's number, so every version is distinct and later events win:
 * no ties for the checks to argue about.
 */
function signed(prefix: string, n: number, base: number): Delivery {
  const key = String(n % 5000).padStart(7, "0");
  const id = `${prefix}${n.toString(36).padStart(7, "0")}`;
  const event = stripeSubscriptionEvent({
    eventId: id,
    created: base + n,
    subscriptionId: `sub_1BenchP${key}`,
    customerId: `cus_BenchP${key}`,
    status: n % 7 === 0 ? "past_due" : "active",
  });
  const d = signStripe(JSON.stringify(event), SECRET);
  return { id, headers: d.headers, body: Buffer.from(d.body) };
}

/**
 * Paced windows of WINDOW_S seconds, until `seconds` have been offered or `stop()` says so (checked between
 * windows). Each window's deliveries are signed just before it starts (not timed), so a window starts a few
 * tens of ms after the previous one ends. Latency is recorded here, per delivery, exactly as paced.ts measures
 * it: request i of a window is due at t0 + i/rate, and paced.ts asks for the deliveries in due order, the first
 * at t0.
 */
async function pacedWindows(
  port: number,
  opts: {
    prefix: string;
    t: Tally;
    samples: Sample[];
    counter: { n: number; base: number };
    seconds?: number;
    stop?: () => boolean;
    onWindow?: (k: number, windowSamples: Sample[]) => Promise<void>;
  },
): Promise<void> {
  const { prefix, t, samples, counter } = opts;
  const t0 = performance.now();
  for (let k = 1; ; k++) {
    const left = opts.seconds !== undefined ? opts.seconds - (performance.now() - t0) / 1000 : WINDOW_S;
    if (left < 0.5 || opts.stop?.()) return;
    const duration = Math.min(WINDOW_S, left);
    const batch = Array.from({ length: Math.round(RATE * duration) }, () => signed(prefix, counter.n++, counter.base));
    const due = new Map<PacedDelivery, number>();
    const windowSamples: Sample[] = [];
    let [i, first] = [0, 0];
    await pacedLoad({
      port,
      path: "/api/webhooks/stripe",
      rate: RATE,
      duration,
      connections: CONNECTIONS,
      next: () => {
        const d = batch[i]!;
        if (i === 0) first = performance.now();
        due.set(d, first + (i * 1000) / RATE);
        i++;
        t.sent.add(d.id);
        return d;
      },
      onResponse: (status, body, pd) => {
        const d = pd as Delivery;
        const s = { due: due.get(pd)!, ms: performance.now() - due.get(pd)!, status };
        samples.push(s);
        windowSamples.push(s);
        if (status < 200 || status > 299) {
          const seen = t.refused.get(status);
          if (seen) seen.n++;
          else t.refused.set(status, { n: 1, body: body.slice(0, 200) });
          return;
        }
        t.acked.add(d.id);
        if (body.includes('"duplicate":false')) t.claims.set(d.id, (t.claims.get(d.id) ?? 0) + 1);
      },
    });
    await opts.onWindow?.(k, windowSamples);
  }
}

interface Latency {
  n: number;
  /** Deliveries per second actually offered: windows start a little after the previous one ends. */
  offered: number;
  p50: number;
  p99: number;
  max: number;
  non2xx: number;
  /** 2xx answers slower than WEBHOOK_CLAIM_TIMEOUT_MS (from when they were due). */
  slow: number;
}
function latencyOf(samples: Sample[]): Latency {
  const ok = samples
    .filter((s) => s.status >= 200 && s.status < 300)
    .map((s) => s.ms)
    .sort((a, b) => a - b);
  const pct = (p: number) => ok[Math.min(ok.length - 1, Math.floor(ok.length * p))] ?? NaN;
  const [first, last] = samples.reduce(
    ([lo, hi], s) => [Math.min(lo, s.due), Math.max(hi, s.due)],
    [Infinity, -Infinity],
  );
  const span = samples.length > 1 ? (last - first) / 1000 : NaN;
  return {
    n: samples.length,
    offered: samples.length / span,
    p50: pct(0.5),
    p99: pct(0.99),
    max: ok[ok.length - 1] ?? NaN,
    non2xx: samples.length - ok.length,
    slow: ok.filter((x) => x > CLAIM_TIMEOUT_MS).length,
  };
}
const latencyCell = (l: Latency) => `${ms(l.p50)} / ${ms(l.p99)} / ${ms(l.max)}`;

/** The whole machine's busy share (everyone's), from /proc/stat. */
function machineTicks(): [busy: number, total: number] {
  const f = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = f.reduce((a, b) => a + b, 0);
  return [total - f[3]! - (f[4] ?? 0), total];
}
const busySince = (m0: [number, number]) => {
  const m1 = machineTicks();
  return (100 * (m1[0] - m0[0])) / Math.max(1, m1[1] - m0[1]);
};

// ------------------------------------------------------------------------------------------------- the checks

/** bench/ingest.ts's exactly-once checks for the paced deliveries, plus one claimed delivery row per event. */
async function verifyPaced(url: string, prefix: string, t: Tally): Promise<string[]> {
  const sql = connect(url);
  try {
    const rows = await sql<{ event_id: string }[]>`
      select event_id from webhook_event where event_id like ${prefix + "%"}`;
    const inDb = new Set(rows.map((r) => r.event_id));
    const [d] = await sql<{ n: number }[]>`
      select count(*)::int as n from (
        select e.source, e.event_id from webhook_event e
        left join webhook_delivery d on d.source = e.source and d.event_id = e.event_id
        group by e.source, e.event_id having count(*) filter (where d.claimed) <> 1) x`;
    const counts: [number, string][] = [
      [[...t.acked].filter((id) => !inDb.has(id)).length, "acknowledged paced events missing from webhook_event"],
      [[...inDb].filter((id) => !t.sent.has(id)).length, "paced rows that were never sent"],
      [[...t.claims.values()].filter((c) => c > 1).length, 'paced events answered "claimed" more than once'],
      [d?.n ?? 0, "events (seeded or paced) without exactly one claimed delivery row"],
    ];
    return counts.filter(([n]) => n > 0).map(([n, what]) => `${n} ${what}`);
  } finally {
    await sql.end({ timeout: 5 });
  }
}

const checkLine = (c: LedgerCheck, extra: string[]) =>
  [...c.problems, ...extra].join("; ") ||
  `every event settled once, one timeline row each, newest version wins; ` +
    `${fmt(c.applied)} applied, ${fmt(c.stale)} stale, ${c.failedAttempts} failed attempts, ${c.deadlocks} deadlocks ✓`;

/** claim→settled (settled_at − received_at) of paced events received in [from, to] (database clock). */
async function claimToSettled(url: string, prefix: string, from?: Date, to?: Date) {
  const sql = connect(url);
  try {
    const [r] = await sql<{ n: number; p50: number; p99: number; max: number; over10s: number }[]>`
      select count(*)::int as n,
        percentile_cont(0.5) within group (order by x)::float8 as p50,
        percentile_cont(0.99) within group (order by x) as p99,
        max(x) as max, count(*) filter (where x > 10000)::int as over10s
      from (select (extract(epoch from settled_at - received_at) * 1000)::float8 as x from webhook_event
            where event_id like ${prefix + "%"}
              and received_at >= coalesce(${from ?? null}::timestamptz, '-infinity')
              and received_at <= coalesce(${to ?? null}::timestamptz, 'infinity')) s`;
    return r!;
  } finally {
    await sql.end({ timeout: 5 });
  }
}

// ---------------------------------------------------------------------------------------------------- the runs

interface RunResult {
  label: string;
  during: Latency;
  after?: Latency;
  drain?: {
    events: number;
    /** First lease → last settle of the seeded events (database clock). */
    seconds: number;
    perSecond: number;
    seedSeconds: number;
    /** Paced events still pending when the last seeded one settled. */
    pacedBehind: number;
    /** First lease → nothing pending more than 5 s past due; every event received by then (seed + paced). */
    caughtUpSeconds: number;
    caughtUpEvents: number;
    /** Claim latency of the paced deliveries due before the last seeded event settled. */
    seededOnly: Latency;
  };
  settle: { n: number; p50: number; p99: number; max: number; over10s: number };
  /** CPU seconds of the receiver process and of the database's backends, the events they settled, wall seconds. */
  cpu: { app: number; pg: number; events: number; wall: number };
  busy: number;
  genLagP99: number;
  receiver: Receiver;
  exitCode: number | null;
  check: string;
  problems: string[];
}

/**
 * Probes of a big table whose statistics are stale (the seed's analyze says every row is claimed) must not be
 * EXISTS or count(*): the planner then picks a sequential scan, which finds nothing only after reading all of it
 * (4 GB at 1 M events; an earlier version of this bench timed out on exactly that). A scalar subquery ordered by
 * a partial index's key with LIMIT 1 walks that index (pending_idx, lease_idx), whose size is the backlog's.
 *
 * Waits until nothing at all is claimed, failed or processing (after the load has stopped). Past `limitMs` it
 * says what is left instead of throwing, so a run still reports what it measured.
 */
async function waitAllSettled(sql: ReturnType<typeof connect>, limitMs: number): Promise<string[]> {
  const until = Date.now() + limitMs;
  for (;;) {
    const [r] = await sql<{ busy: boolean }[]>`
      select (select 1 from webhook_event where status in ('claimed', 'failed') order by next_attempt_at limit 1) is not null
          or (select 1 from webhook_event where status = 'processing' order by lease_expires_at limit 1) is not null as busy`;
    if (!r?.busy) return [];
    if (Date.now() > until) {
      const left = await sql<{ status: string; prefix: string; n: number; attempts: number; error: string | null }[]>`
        select status, left(event_id, 16) as prefix, count(*)::int as n, max(attempts)::int as attempts,
               min(last_error) as error
        from webhook_event where status in ('claimed', 'failed', 'processing', 'dead') group by 1, 2`;
      return [
        `still unsettled ${limitMs / 1000} s after the load stopped: ${left
          .map(
            (x) =>
              `${x.prefix}… ${x.status} ×${x.n} (attempts ≤ ${x.attempts}${x.error ? `, ${x.error.slice(0, 120)}` : ""})`,
          )
          .join("; ")}`,
      ];
    }
    await sleep(250);
  }
}

async function baselineRun(label: string): Promise<RunResult> {
  return withFreshDb(async (url, name) => {
    const sql = connect(url);
    const receiver = await startReceiver(url);
    try {
      const backends = backendCpu(sql, name);
      const counter = { n: 0, base: nowSeconds() - 10_000_000 };
      const t = tally(); // warm-up and measured deliveries alike are checked afterwards
      await pacedWindows(receiver.port, {
        prefix: "evt_1BenchBlWarm",
        t,
        samples: [],
        counter,
        seconds: WARMUP_S,
      });
      const [app0, m0, w0] = [cpuSeconds(receiver.pid) ?? 0, machineTicks(), performance.now()];
      await backends.sample();
      const pg0 = backends.seconds();
      const loop = monitorEventLoopDelay({ resolution: 2 });
      loop.enable();
      const samples: Sample[] = [];
      const eventsBefore = counter.n;
      await pacedWindows(receiver.port, {
        prefix: "evt_1BenchBlBase",
        t,
        samples,
        counter,
        seconds: BASELINE_S,
        onWindow: async (k, w) => {
          await backends.sample();
          const l = latencyOf(w);
          console.log(
            `  baseline window ${k}: ${fmt(l.n)} deliveries, claim p50 / p99 / max ${latencyCell(l)} ms, non-2xx ${l.non2xx}`,
          );
        },
      });
      loop.disable();
      const unsettled = await waitAllSettled(sql, 300_000);
      await backends.sample();
      const cpu = {
        app: (cpuSeconds(receiver.pid) ?? NaN) - app0,
        pg: backends.seconds() - pg0,
        events: counter.n - eventsBefore,
        wall: (performance.now() - w0) / 1000,
      };
      const busy = busySince(m0);
      const exitCode = await stopReceiver(receiver.child);
      const check = await verifyLedger(url);
      const extra = [...unsettled, ...(await verifyPaced(url, "evt_1BenchBl", t))];
      return {
        label,
        during: latencyOf(samples),
        settle: await claimToSettled(url, "evt_1BenchBlBase"),
        cpu,
        busy,
        genLagP99: loop.percentile(99) / 1e6,
        receiver,
        exitCode,
        check: checkLine(check, extra),
        problems: [...check.problems, ...extra],
      };
    } finally {
      await stopReceiver(receiver.child);
      await sql.end({ timeout: 5 });
    }
  });
}

async function backlogRun(): Promise<RunResult> {
  return withFreshDb(async (url, name) => {
    const sql = connect(url);
    let receiver: Receiver | undefined;
    try {
      const s0 = performance.now();
      process.stdout.write(`  seeding ${fmt(BACKLOG)} claimed events (one insert … select from generate_series) … `);
      await seedClaimed(url, BACKLOG);
      // What the receiver writes beside each claim: one webhook_delivery row with claimed = true.
      await sql`insert into webhook_delivery (source, event_id, received_at, via, claimed)
        select source, event_id, received_at, 'provider', true from webhook_event`;
      await settleDb(sql, ["webhook_delivery"]);
      const seedSeconds = (performance.now() - s0) / 1000;
      const [size] = await sql<{ events: string; deliveries: string }[]>`
        select pg_size_pretty(pg_total_relation_size('webhook_event_body') + pg_total_relation_size('webhook_event_state')) as events,
               pg_size_pretty(pg_total_relation_size('webhook_delivery')) as deliveries`;
      console.log(
        `${fmt(seedSeconds, 1)} s (webhook_event ${size?.events}, webhook_delivery ${size?.deliveries}; vacuum (analyze) and a checkpoint included)`,
      );

      const backends = backendCpu(sql, name);
      const pending = async () =>
        (
          await sql<{ busy: boolean }[]>`
            select (select 1 from webhook_event where status in ('claimed', 'failed') and event_id like ${SEED_PREFIX + "%"}
                    order by next_attempt_at limit 1) is not null
                or (select 1 from webhook_event where status = 'processing' and event_id like ${SEED_PREFIX + "%"}
                    order by lease_expires_at limit 1) is not null as busy`
        )[0]?.busy ?? true;

      const m0 = machineTicks();
      const spawnedAt = performance.now();
      receiver = await startReceiver(url); // its embedded worker starts leasing the backlog at once
      const r = receiver;
      const [app0, w0] = [cpuSeconds(r.pid) ?? 0, performance.now()]; // tsx start-up excluded (mostly; the worker has begun)
      console.log(`  receiver healthy ${fmt((performance.now() - spawnedAt) / 1000, 1)} s after spawn; draining`);
      await backends.sample();

      const t = tally(); // warm-up and measured deliveries alike are checked afterwards
      // Progress without touching the table: seeded + acknowledged − settled (the receiver's "batch settled" lines).
      const pendingEstimate = () => BACKLOG + t.acked.size - r.batches.loopEvents;
      // Two moments, polled every 250 ms while the load runs. seededAt: the last seeded event is settled.
      // caughtUpAt: besides, no event is pending more than 5 s past its due time. Paced deliveries the live lane
      // did not take are due from their claim, after every seeded event, so the loops reach them only once the
      // seed is gone: they are backlog too, and the load runs until they are done.
      let seededAt: number | undefined;
      let caughtUpAt: number | undefined;
      let caughtUpDb: Date | undefined;
      let pacedBehind = NaN;
      let failure: unknown;
      const poller = (async () => {
        const until = performance.now() + DRAIN_LIMIT_MS;
        while (caughtUpAt === undefined) {
          if (r.child.exitCode !== null) throw new Error(`receiver died during the drain:\n${r.tail()}`);
          if (performance.now() > until) throw new Error(`backlog not drained within ${DRAIN_LIMIT_MS / 60_000} min`);
          if (seededAt === undefined) {
            if (!(await pending())) {
              seededAt = performance.now();
              pacedBehind = pendingEstimate();
              console.log(
                `  the seeded backlog is settled (t+${fmt((seededAt - spawnedAt) / 1000, 0)} s); ` +
                  `≈ ${fmt(pacedBehind)} paced events still pending behind it (from the receiver's batch log)`,
              );
            }
          } else {
            const [c] = await sql<{ at: Date; behind: boolean }[]>`
              select now() as at, (select 1 from webhook_event where status in ('claimed', 'failed')
                and next_attempt_at < now() - interval '5 seconds' order by next_attempt_at limit 1) is not null as behind`;
            if (c && !c.behind) [caughtUpAt, caughtUpDb] = [performance.now(), c.at];
          }
          if (caughtUpAt === undefined) await sleep(250);
        }
      })().catch((err: unknown) => {
        failure = err;
        caughtUpAt ??= performance.now();
      });

      const counter = { n: 0, base: nowSeconds() - 10_000_000 };
      await pacedWindows(r.port, { prefix: "evt_1BenchBlWarm", t, samples: [], counter, seconds: WARMUP_S });
      const loop = monitorEventLoopDelay({ resolution: 2 });
      loop.enable();
      const samples: Sample[] = [];
      const measuredFrom = performance.now();
      await pacedWindows(r.port, {
        prefix: "evt_1BenchBlPace",
        t,
        samples,
        counter,
        stop: () => caughtUpAt !== undefined,
        onWindow: async (k, w) => {
          const l = latencyOf(w);
          const at = fmt((performance.now() - spawnedAt) / 1000, 0);
          // Not awaited: the next window starts now; the line prints once the CPU sample is in.
          void backends
            .sample()
            .then(() => pendingEstimate())
            .then(
              (remaining) =>
                console.log(
                  `  window ${k} (ended t+${at} s): ${fmt(l.n)} deliveries, claim p50 / p99 / max ${latencyCell(l)} ms,` +
                    ` non-2xx ${l.non2xx}; ≈ ${fmt(remaining)} events unsettled; machine busy ${busySince(m0).toFixed(0)} % since the receiver started`,
                ),
              () => {},
            );
        },
      });
      loop.disable();
      await poller;
      if (failure) throw failure;
      const unsettled = await waitAllSettled(sql, 600_000);
      await backends.sample();
      const cpu = {
        app: (cpuSeconds(r.pid) ?? NaN) - app0,
        pg: backends.seconds(),
        events: BACKLOG + counter.n,
        wall: (performance.now() - w0) / 1000,
      };
      const busy = busySince(m0);
      const exitCode = await stopReceiver(r.child);

      const [d] = await sql<{ first: Date; last: Date; seconds: number }[]>`
        select min(leased_at) as first, max(settled_at) as last,
               extract(epoch from max(settled_at) - min(leased_at))::float8 as seconds
        from webhook_event where event_id like ${SEED_PREFIX + "%"}`;
      const seconds = d!.seconds;
      const check = await verifyLedger(url);
      const [seeded] = await sql<{ n: number }[]>`
        select count(*)::int as n from webhook_event where event_id like ${SEED_PREFIX + "%"}`;
      const extra = [...unsettled, ...(await verifyPaced(url, "evt_1BenchBl", t))];
      if (seeded?.n !== BACKLOG) extra.push(`${seeded?.n} seeded events in the ledger, expected ${BACKLOG}`);
      const duringSamples = samples.filter((s) => s.due <= caughtUpAt!);
      const afterSamples = samples.filter((s) => s.due > caughtUpAt!);
      const seededSamples = latencyOf(samples.filter((s) => s.due <= seededAt!));
      if (duringSamples.length === 0)
        console.log(
          `  note: the backlog drained ${fmt((caughtUpAt! - measuredFrom) / 1000, 1)} s from the start ` +
            `of the measured load (after the warm-up); no measured delivery fell inside the drain`,
        );
      const [u] = await sql<{ seconds: number; paced: number }[]>`
        select extract(epoch from ${caughtUpDb!}::timestamptz - ${d!.first}::timestamptz)::float8 as seconds,
               (select count(*)::int from webhook_event where event_id like 'evt_1BenchBl%'
                  and received_at <= ${caughtUpDb!}::timestamptz) as paced`;
      return {
        label: `during the drain of ${fmt(BACKLOG)}`,
        during: latencyOf(duringSamples),
        after: afterSamples.length ? latencyOf(afterSamples) : undefined,
        drain: {
          events: BACKLOG,
          seconds,
          perSecond: BACKLOG / seconds,
          seedSeconds,
          pacedBehind,
          caughtUpSeconds: u!.seconds,
          caughtUpEvents: BACKLOG + u!.paced,
          seededOnly: seededSamples,
        },
        settle: await claimToSettled(url, "evt_1BenchBlPace", d!.first, caughtUpDb),
        cpu,
        busy,
        genLagP99: loop.percentile(99) / 1e6,
        receiver: r,
        exitCode,
        check: checkLine(check, extra),
        problems: [...check.problems, ...extra],
      };
    } finally {
      if (receiver) await stopReceiver(receiver.child);
      await sql.end({ timeout: 5 });
    }
  });
}

// ------------------------------------------------------------------------------------------------------ report

function report(runs: RunResult[]) {
  const bases = runs.filter((r) => !r.drain);
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const head = [
    "run",
    "deliveries",
    "claim p50 / p99 / max ms",
    "non-2xx",
    `> ${fmt(CLAIM_TIMEOUT_MS)} ms`,
    "claim→settled p50 / p99 / max ms",
    "drain",
    "app + PG CPU µs/event",
    "app + PG cores",
    "machine busy %",
    "gen lag p99 ms",
  ];
  const lines = runs.flatMap((r) => {
    const cpu = `${fmt((1e6 * r.cpu.app) / r.cpu.events)} + ${fmt((1e6 * r.cpu.pg) / r.cpu.events)}`;
    const settle = `${ms(r.settle.p50)} / ${ms(r.settle.p99)} / ${ms(r.settle.max)}`;
    const drain = r.drain
      ? `${fmt(r.drain.events)} in ${fmt(r.drain.seconds, 1)} s = ${fmt(r.drain.perSecond)}/s`
      : "—";
    const row = (label: string, l: Latency, rest: string[]) => [
      label,
      `${fmt(l.n)} (${fmt(l.offered)}/s)`,
      latencyCell(l),
      String(l.non2xx),
      String(l.slow),
      ...rest,
    ];
    const out = [
      row(r.label, r.during, [
        settle,
        drain,
        cpu,
        `${fmt(r.cpu.app / r.cpu.wall, 2)} + ${fmt(r.cpu.pg / r.cpu.wall, 2)}`,
        r.busy.toFixed(0),
        r.genLagP99.toFixed(1),
      ]),
    ];
    const blank = ["", "", "", "", "", ""];
    if (r.drain) out.push(row("…of which while the seed drained", r.drain.seededOnly, blank));
    if (r.after) out.push(row("…after it, same receiver", r.after, blank));
    return out;
  });
  const widths = head.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(" | ")} |`;
  console.log(
    [
      line(head),
      `|${widths.map((w, i) => (i === 0 ? "-".repeat(w + 2) : `${"-".repeat(w + 1)}:`)).join("|")}|`,
      ...lines.map(line),
    ].join("\n"),
  );
  console.log("");
  for (const r of runs) {
    const b = r.receiver.batches;
    console.log(
      `${r.label}: ${r.check}; receiver exit ${r.exitCode}; ${fmt(b.loopEvents)} events in ${fmt(b.loop)} batches; ` +
        `${fmt(b.yields)} pauses for the intake's slow claims ` +
        `(${fmt(b.yieldMs / 1000, 1)} s in all); ${r.receiver.warnings.n} warn/error log lines` +
        (r.settle.over10s ? `; ${fmt(r.settle.over10s)} paced events took > 10 s from claim to settled` : ""),
    );
    for (const w of r.receiver.warnings.first.slice(0, 5)) console.log(`    ${w}`);
  }
  const drained = runs.find((r) => r.drain);
  if (drained?.drain) {
    const d = drained.drain;
    console.log(
      `\ndrain: the seeded ${fmt(d.events)} in ${fmt(d.seconds, 1)} s (first lease → last settle) = ` +
        `${fmt(d.perSecond)} events/s, beside ${fmt(RATE)} new deliveries/s (seed took ${fmt(d.seedSeconds, 1)} s); ` +
        `≈ ${fmt(d.pacedBehind)} paced events were still pending behind it; caught up (nothing pending > 5 s past due) ` +
        `${fmt(d.caughtUpSeconds, 1)} s after the first lease: ${fmt(d.caughtUpEvents)} events = ${fmt(d.caughtUpEvents / d.caughtUpSeconds)}/s`,
    );
  }
  if (drained) {
    const l = drained.during;
    const starved = l.non2xx > 0 || l.slow > 0;
    const baseP99 = bases.length ? mean(bases.map((b) => b.during.p99)) : NaN;
    const baseP50 = bases.length ? mean(bases.map((b) => b.during.p50)) : NaN;
    const ratio = bases.length
      ? ` · p99 during / baseline: ${fmt(l.p99 / baseP99, 2)}× (${ms(l.p99)} vs ${ms(baseP99)} ms, the mean of ` +
        `${bases.map((b) => `${ms(b.during.p99)}`).join(" and ")}; per baseline ${bases.map((b) => `${fmt(l.p99 / b.during.p99, 2)}×`).join(", ")})` +
        ` · p50 ${fmt(l.p50 / baseP50, 2)}×`
      : "";
    console.log(`claims during the drain: p50 ${ms(l.p50)} / p99 ${ms(l.p99)} / max ${ms(l.max)} ms${ratio}`);
    if (bases.length)
      console.log(
        `processing of the paced events during the drain (claim→settled): p50 ${ms(drained.settle.p50)} / p99 ${ms(drained.settle.p99)} / ` +
          `max ${ms(drained.settle.max)} ms, against p99 ${bases.map((b) => ms(b.settle.p99)).join(" and ")} ms without a backlog`,
      );
    console.log(
      `claims starved (any non-2xx, or any answer slower than WEBHOOK_CLAIM_TIMEOUT_MS = ${fmt(CLAIM_TIMEOUT_MS)} ms): ` +
        `${l.n === 0 ? "no data (no measured delivery fell inside the drain)" : starved ? `YES: ${l.non2xx} non-2xx, ${l.slow} slower` : "no"}`,
    );
  }
  const problems = runs.flatMap((r) => r.problems.map((p) => `${r.label}: ${p}`));
  console.log(
    `exactly once: ${problems.length ? `FAILED: ${problems.join("; ")}` : "met (every seeded and paced event)"}`,
  );
  if (problems.length) process.exitCode = 1;
}

async function main() {
  let interrupted = false;
  process.once("SIGINT", () => {
    interrupted = true;
    void Promise.all([...receivers].map((c) => stopReceiver(c)))
      .then(dropAllCreated)
      .finally(() => process.exit(130));
  });
  console.log(`machine: ${await machineLine()}`);
  console.log(
    `command: npm run bench:backlog -- ${process.argv.slice(2).join(" ") || "(defaults)"} · backlog ${fmt(BACKLOG)}, ` +
      `paced ${fmt(RATE)}/s over ${CONNECTIONS} connections in ${WINDOW_S} s windows (${WARMUP_S} s warm-up), ` +
      `baseline ${BASELINE ? `${BASELINE_S} s` : "off"}`,
  );
  console.log(
    `receiver: node --import tsx lib/cli/receiver.ts (npm run receiver), WORKER_MODE=embedded, WORKER_CONCURRENCY ${settings.WORKER_CONCURRENCY}, ` +
      `WORKER_BATCH_SIZE ${settings.WORKER_BATCH_SIZE ?? DEFAULT_BATCH_SIZE.embedded}, ` +
      `CLAIM_POOL_MAX ${settings.CLAIM_POOL_MAX}, ` +
      `DATABASE_POOL_MAX ${settings.DATABASE_POOL_MAX}, WEBHOOK_CLAIM_TIMEOUT_MS ${settings.WEBHOOK_CLAIM_TIMEOUT_MS}; ` +
      `the driver, the receiver and PostgreSQL share the cores`,
  );
  console.log(`load average before: ${loadavg()} (anything else running skews the figures)\n`);
  const runs: RunResult[] = [];
  const t = performance.now();
  // A B A: a baseline on either side of the backlog run, so a drift of the shared machine shows.
  if (BASELINE) {
    console.log(`baseline (before): the paced load alone, ${BASELINE_S} s, fresh database`);
    runs.push(await baselineRun("baseline before: no backlog"));
  }
  if (!interrupted) {
    console.log(`backlog: ${fmt(BACKLOG)} claimed events, the paced load until they are settled, fresh database`);
    runs.push(await backlogRun());
  }
  if (BASELINE && !interrupted) {
    console.log(`baseline (after): the paced load alone, ${BASELINE_S} s, fresh database`);
    runs.push(await baselineRun("baseline after: no backlog"));
  }
  console.log(`\nload average after: ${loadavg()}; whole run ${fmt((performance.now() - t) / 1000, 0)} s\n`);
  report(runs);
}

try {
  await main();
} catch (err) {
  console.error(`bench:backlog failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  process.exitCode = 1;
} finally {
  await Promise.all([...receivers].map((c) => stopReceiver(c)));
  await dropAllCreated();
}
