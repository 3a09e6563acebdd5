/**
 * `npm run bench:forward`'s latency: the real app process (lib/cli/receiver.ts, what `npm run receiver` runs: the
 * intake, and startProcessWork's embedded worker and forwarder at their defaults) on a fresh database, with the
 * destination declared in a DESTINATIONS_FILE, takes signed Stripe deliveries over HTTP at a steady rate (open
 * loop, bench/paced.ts). Measured per event: from its claim (received_at, the claim transaction's now()) to the
 * destination having the whole forward (Date.now() on the same machine's clock), and to its settle.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import { stripeSubscriptionEvent } from "../test/fixtures/stripe";
import { signStripe } from "../test/sign";
import type { Destination } from "./forward-destination";
import { DEST_NAME, SECRET_ENV } from "./forward-throughput";
import { pacedLoad, type PacedDelivery } from "./paced";
import { connect, sleep, withFreshDb } from "./worker-db";

const STRIPE_SECRET = "whsec_bench_forward_0123456789";
const WARMUP_S = 5;
const CONNECTIONS = 50;

export interface Percentiles {
  n: number;
  p50: number;
  p99: number;
  max: number;
}
export interface LatencyRun {
  rate: number;
  seconds: number;
  toForward: Percentiles;
  toSettled: Percentiles;
  /** The delivery's answer, from when it was due (bench/paced.ts). */
  claim: { p50: number; p99: number };
  problems: string[];
}

export function percentiles(xs: number[]): Percentiles {
  const s = [...xs].sort((a, b) => a - b);
  const at = (p: number) => s[Math.min(s.length - 1, Math.floor(s.length * p))] ?? NaN;
  return { n: s.length, p50: at(0.5), p99: at(0.99), max: s[s.length - 1] ?? NaN };
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const srv = createServer().listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === "object" && addr ? resolve(addr.port) : reject(new Error("no port"))));
    });
  });

/** lib/cli/receiver.ts under `node --import tsx`, healthy; its output kept as a tail. */
async function startReceiver(env: Record<string, string>): Promise<{ child: ChildProcess; port: number }> {
  const port = await freePort();
  const child = spawn(process.execPath, ["--import", "tsx", "lib/cli/receiver.ts"], {
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let tail = "";
  const keep = (b: Buffer) => void (tail = (tail + b.toString()).slice(-4000));
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`receiver exited early:\n${tail}`);
    const ok = await fetch(`http://127.0.0.1:${port}/api/health`).then(
      (res) => res.ok,
      () => false,
    );
    if (ok) return { child, port };
    if (Date.now() > deadline) throw new Error(`receiver not healthy within 90 s:\n${tail}`);
    await sleep(200);
  }
}

/** SIGTERM (this child only, by its handle), SIGKILL after 20 s. */
async function stopReceiver(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
  await exited;
  clearTimeout(timer);
}

/** `count` signed customer.subscription.updated deliveries over 2,000 subscriptions, each a newer version. */
function deliveries(prefix: string, count: number): (PacedDelivery & { id: string })[] {
  const base = Math.floor(Date.now() / 1000);
  return Array.from({ length: count }, (_, n) => {
    const key = String(n % 2000).padStart(7, "0");
    const id = `${prefix}${String(n).padStart(7, "0")}`;
    const event = stripeSubscriptionEvent({
      eventId: id,
      created: base + n,
      subscriptionId: `sub_1BenchF${key}`,
      customerId: `cus_BenchF${key}`,
    });
    const d = signStripe(JSON.stringify(event), STRIPE_SECRET);
    return { id, headers: d.headers, body: Buffer.from(d.body) };
  });
}

async function offer(port: number, rate: number, seconds: number, batch: (PacedDelivery & { id: string })[]) {
  let i = 0;
  let non2xx = 0;
  const r = await pacedLoad({
    port,
    path: "/api/webhooks/stripe",
    rate,
    duration: seconds,
    connections: CONNECTIONS,
    next: () => batch[i++]!,
    onResponse: (status) => void (status >= 200 && status < 300 ? 0 : non2xx++),
  });
  return { ...r, non2xx };
}

export async function forwardLatency(opts: {
  rate: number;
  seconds: number;
  inFlight: number;
  secret: string;
  destination: Destination;
}): Promise<LatencyRun> {
  const { rate, seconds, destination } = opts;
  const dir = mkdtempSync(path.join(os.tmpdir(), "bench-forward-"));
  const file = path.join(dir, "destinations.json");
  writeFileSync(
    file,
    JSON.stringify([
      {
        name: DEST_NAME,
        url: destination.url,
        secretEnv: SECRET_ENV,
        mode: "every",
        format: "standard",
        maxInFlight: opts.inFlight,
      },
    ]),
  );
  try {
    return await withFreshDb(async (url) => {
      const receiver = await startReceiver({
        DATABASE_URL: url,
        STRIPE_WEBHOOK_SECRET: STRIPE_SECRET,
        WORKER_MODE: "embedded",
        DEDUP_CACHE_URL: "",
        NODE_ENV: "production",
        HOST: "127.0.0.1",
        DESTINATIONS_FILE: file,
        [SECRET_ENV]: opts.secret,
        FORWARD_ALLOW_PRIVATE: "true",
      });
      try {
        destination.reset();
        const warm = await offer(receiver.port, rate, WARMUP_S, deliveries("evt_1BenchFwarm", rate * WARMUP_S));
        const total = Math.round(rate * seconds);
        await destination.waitFor(warm.requests.total, 30_000);
        destination.reset();
        const measured = await offer(receiver.port, rate, seconds, deliveries("evt_1BenchFlat", total));
        await destination.waitFor(total, 60_000);
        await sleep(500); // anything sent twice would arrive now
        return await measure(url, destination, total, measured, rate, seconds);
      } finally {
        await stopReceiver(receiver.child);
      }
    }, "ledger_bench_fwd");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function measure(
  url: string,
  destination: Destination,
  total: number,
  offered: Awaited<ReturnType<typeof offer>>,
  rate: number,
  seconds: number,
): Promise<LatencyRun> {
  const sql = connect(url);
  try {
    const rows = await sql<{ event_id: string; received: number; settled: number | null }[]>`
      select event_id, extract(epoch from received_at) * 1000 as received,
        extract(epoch from settled_at) * 1000 as settled
      from webhook_event_state where event_id like 'evt_1BenchFlat%'`;
    const arrived = new Map<string, number>();
    let twice = 0;
    for (const a of destination.arrivals) {
      if (arrived.has(a.eventId!)) twice++;
      else arrived.set(a.eventId!, a.at);
    }
    const toForward: number[] = [];
    const toSettled: number[] = [];
    for (const r of rows) {
      const at = arrived.get(r.event_id);
      if (at !== undefined) toForward.push(at - Number(r.received));
      if (r.settled !== null) toSettled.push(Number(r.settled) - Number(r.received));
    }
    const problems = [
      ...(offered.non2xx > 0 ? [`${offered.non2xx} deliveries answered non-2xx`] : []),
      ...(rows.length !== total ? [`${rows.length} events claimed, expected ${total}`] : []),
      ...(toForward.length !== total ? [`${toForward.length} of ${total} forwards arrived`] : []),
      ...(toSettled.length !== total ? [`${toSettled.length} of ${total} settled`] : []),
      ...(twice > 0 ? [`${twice} forwards arrived twice`] : []),
    ];
    return {
      rate,
      seconds,
      toForward: percentiles(toForward),
      toSettled: percentiles(toSettled),
      claim: offered.latency,
      problems,
    };
  } finally {
    await sql.end({ timeout: 5 });
  }
}
