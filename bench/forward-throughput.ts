/**
 * `npm run bench:forward`'s drain: N settled events whose forwards wait in the outbox, sent by the real forwarder
 * (lib/forward/forwarder.ts: its loop, lease, message and send) on the app's pool, against a bare loop that POSTs
 * the same signed envelopes with node:http as lib/forward/send.ts does (a connection per request), with the
 * destination's maxInFlight in flight, and no database.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import path from "node:path";
import { sql } from "drizzle-orm";
import { connectPostgres, rowsOf, type Db } from "@/db/client";
import { parseEnv } from "@/lib/env";
import { syncDeclaredDestinations } from "@/lib/forward/destinations";
import { createForwarder } from "@/lib/forward/forwarder";
import { forwardedEventOf } from "@/lib/forward/lease";
import { standardMessage, type Message } from "@/lib/forward/message";
import { leaseDue } from "@/lib/ledger/lease";
import { processLeased } from "@/lib/ledger/process";
import { staticSourceDirectory } from "@/lib/sources/directory";
import { workerSettingsFromEnv } from "@/lib/worker/settings";
import type { Destination } from "./forward-destination";
import { backendCpu, connect, seedClaimed, settleDb, withFreshDb } from "./worker-db";

export const DEST_NAME = "bench";
export const SECRET_ENV = "BENCH_FORWARD_SECRET";

export interface DrainRun {
  events: number;
  seconds: number;
  perSecond: number;
  /** CPU µs per forward: this process (sender and destination) and, for the forwarder, PostgreSQL's backends. */
  cpu: { node: number; postgres?: number };
  problems: string[];
}

export interface ThroughputSetup {
  events: number;
  inFlight: number;
  secret: string;
  destination: Destination;
}

/** The app's defaults: its main pool's size, the embedded worker's settings (the settle writes the outbox). */
const APP = parseEnv({});

/** N claimed events (bench:worker's seed), a destination taking them all, and the real settle of each. */
export async function seedOutbox(url: string, s: ThroughputSetup, db: Db): Promise<void> {
  await seedClaimed(url, s.events);
  await syncDeclaredDestinations(db, [
    {
      name: DEST_NAME,
      url: s.destination.url,
      secretEnv: SECRET_ENV,
      mode: "every",
      format: "standard",
      maxInFlight: s.inFlight,
      timeoutMs: 5000,
      maxAttempts: 10,
      state: "active",
    },
  ]);
  const settings = workerSettingsFromEnv(APP, "embedded");
  const ctx = { policy: settings.policy, handlers: settings.handlers };
  for (;;) {
    const batch = await leaseDue(db, { workerId: "bench", leaseMs: 60_000, limit: 250 });
    if (batch.length === 0) break;
    await processLeased(db, batch, ctx);
  }
  const sqlc = connect(url);
  try {
    await settleDb(sqlc, ["forward", "forward_destination", "webhook_event_state", "webhook_event_body"]);
  } finally {
    await sqlc.end({ timeout: 5 });
  }
  const [row] = rowsOf<{ n: number }>(
    await db.execute(sql`select count(*)::int as n from forward where status = 'pending'`),
  );
  if (row?.n !== s.events) throw new Error(`the settle queued ${row?.n} forwards, expected ${s.events}`);
}

/** The envelopes the forwarder sends, as the lease reads them: for the bare loop to send the same bytes. */
async function readEnvelopes(db: Db, secret: string): Promise<Message[]> {
  const rows = rowsOf<Parameters<typeof forwardedEventOf>[0]>(
    await db.execute(sql`
      select s.source, s.event_id, s.event_type, s.received_at, b.entity_type, b.entity_id,
        b.entity_version::text as entity_version, b.raw_body
      from forward f
      join webhook_event_state s on s.source = f.source and s.event_id = f.event_id
      join webhook_event_body b on b.source = f.source and b.event_id = f.event_id
      order by f.id`),
  );
  const now = new Date();
  return rows.map((r) => standardMessage(forwardedEventOf(r, DEST_NAME), [secret], now));
}

const cpuMicros = (start: NodeJS.CpuUsage) => {
  const u = process.cpuUsage(start);
  return u.user + u.system;
};

/** One drain by the forwarder, on a fresh database. Fills `envelopes` from it when it is empty. */
export async function forwarderDrain(
  s: ThroughputSetup,
  envelopes: Message[],
  create: typeof createForwarder = createForwarder,
  opts: { dropIndex?: string } = {},
): Promise<DrainRun> {
  return withFreshDb(async (url, name) => {
    const handle = connectPostgres(url, { max: APP.DATABASE_POOL_MAX });
    const probe = connect(url);
    try {
      await seedOutbox(url, s, handle.db);
      // An index's worth, A/B: the same drain on a database without it.
      if (opts.dropIndex) await probe.unsafe(`drop index if exists ${opts.dropIndex}`);
      if (envelopes.length === 0) envelopes.push(...(await readEnvelopes(handle.db, s.secret)));
      s.destination.reset();
      const backends = backendCpu(probe, name);
      await backends.sample();
      const pgBefore = backends.seconds();
      let recorded = 0;
      let failed = 0;
      let done!: () => void;
      const finished = new Promise<void>((resolve) => (done = resolve));
      const forwarder = create({
        getDb: () => Promise.resolve(handle.db),
        sources: staticSourceDirectory([]),
        envVar: (v) => (v === SECRET_ENV ? s.secret : undefined),
        allowPrivate: true,
        log: (m) => console.error(`  forwarder: ${m}`),
        onAttempt: (_d, _f, result) => {
          if (!result.ok) failed++;
          if (++recorded >= s.events) done();
        },
      });
      const sampler = setInterval(() => void backends.sample(), 250);
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      forwarder.start();
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        finished,
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error("not drained within 10 minutes")), 600_000);
        }),
      ]).finally(() => clearTimeout(timer));
      const seconds = (performance.now() - t0) / 1000;
      const node = cpuMicros(cpu0);
      await backends.sample();
      clearInterval(sampler);
      const pg = (backends.seconds() - pgBefore) * 1e6;
      await forwarder.stop();
      const problems = await checkDrain(handle.db, s, failed);
      return {
        events: s.events,
        seconds,
        perSecond: s.events / seconds,
        cpu: { node: node / s.events, postgres: pg / s.events },
        problems,
      };
    } finally {
      await probe.end({ timeout: 5 });
      await handle.close();
    }
  }, "ledger_bench_fwd");
}

/** Every forward sent once: one attempt each, as many requests as events, no webhook-id twice. */
async function checkDrain(db: Db, s: ThroughputSetup, failed: number): Promise<string[]> {
  const [r] = rowsOf<{ sent: number; attempts: number }>(
    await db.execute(sql`
      select (select count(*)::int from forward where status = 'sent') as sent,
             (select count(*)::int from forward_attempt) as attempts`),
  );
  const ids = new Set(s.destination.arrivals.map((a) => a.webhookId));
  const problems: string[] = [];
  if (r?.sent !== s.events) problems.push(`${r?.sent} forwards sent, expected ${s.events}`);
  if (r?.attempts !== s.events) problems.push(`${r?.attempts} attempts, expected ${s.events}`);
  if (s.destination.arrivals.length !== s.events)
    problems.push(`${s.destination.arrivals.length} requests arrived, expected ${s.events}`);
  if (ids.size !== s.destination.arrivals.length)
    problems.push(`${s.destination.arrivals.length - ids.size} sent twice`);
  if (failed > 0) problems.push(`${failed} failed attempts`);
  return problems;
}

/** POST one message as lib/forward/send.ts does (same headers, a connection of its own); true on a 2xx. */
function post(url: URL, m: Message): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request(url, {
      method: "POST",
      headers: {
        ...m.headers,
        "content-length": String(Buffer.byteLength(m.body)),
        "user-agent": "webhook-ledger-forward",
      },
      agent: false,
    });
    req.on("response", (res) => {
      res.on("data", () => {});
      res.on("end", () => resolve((res.statusCode ?? 0) >= 200 && (res.statusCode ?? 0) < 300));
      res.on("error", () => resolve(false));
    });
    req.on("error", () => resolve(false));
    req.end(m.body);
  });
}

/** The bare loop: `inFlight` senders taking the next envelope as soon as their request is answered. */
export async function bareDrain(s: ThroughputSetup, envelopes: readonly Message[]): Promise<DrainRun> {
  s.destination.reset();
  const url = new URL(s.destination.url);
  let next = 0;
  let failed = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: s.inFlight }, async () => {
      while (next < envelopes.length) if (!(await post(url, envelopes[next++]!))) failed++;
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const node = cpuMicros(cpu0);
  const problems = [
    ...(failed > 0 ? [`${failed} requests failed`] : []),
    ...(s.destination.arrivals.length !== envelopes.length
      ? [`${s.destination.arrivals.length} requests arrived, expected ${envelopes.length}`]
      : []),
  ];
  return {
    events: envelopes.length,
    seconds,
    perSecond: envelopes.length / seconds,
    cpu: { node: node / envelopes.length },
    problems,
  };
}

/**
 * lib/forward as it was at a git ref, for an A/B in one invocation: its files are written under node_modules/.cache
 * (out of the way of the linters and git) with `@/` imports pointed at this tree, so only lib/forward differs.
 */
export async function forwarderAt(ref: string): Promise<typeof createForwarder> {
  const git = (...args: string[]) => execFileSync("git", args, { encoding: "utf8" });
  const root = git("rev-parse", "--show-toplevel").trim();
  const sha = git("rev-parse", "--short", ref).trim();
  const dir = path.join(root, "node_modules/.cache/bench-forward", sha, "lib/forward");
  mkdirSync(dir, { recursive: true });
  for (const file of git("ls-tree", "--name-only", `${sha}:lib/forward`).split("\n")) {
    if (!file.endsWith(".ts")) continue;
    const text = git("show", `${sha}:lib/forward/${file}`).replaceAll('from "@/', `from "${root}/`);
    writeFileSync(path.join(dir, file), text);
  }
  const mod = (await import(path.join(dir, "forwarder.ts"))) as { createForwarder: typeof createForwarder };
  return mod.createForwarder;
}
