import { connect } from "node:net";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stripeInvoicePaidEvent } from "@/test/fixtures/stripe";
import { signStripe, TEST_SECRETS, type Delivery } from "@/test/sign";
import { startApp, type AppProcess } from "./app";
import { startThrowawayCluster, type Cluster } from "./pg-cluster";

/**
 * A deploy's SIGTERM while the embedded worker drains a backlog: stop intake, let the batches in hand
 * settle, close the pools, exit 0 within SHUTDOWN_TIMEOUT_MS, and leave nothing mid-lease for the reaper.
 */

const EVENTS = 3000;
const CUSTOMERS = 40;
const SHUTDOWN_TIMEOUT_MS = 8000;
const DRAIN_ENV = {
  WORKER_MODE: "embedded",
  WORKER_CONCURRENCY: "4",
  WORKER_BATCH_SIZE: "50",
  SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
  WORKER_LEASE_MS: "30000",
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const amountOf = (n: number) => 100 + (n % 50);
const customerOf = (n: number) => `cus_sigterm_${n % CUSTOMERS}`;

function delivery(eventId: string, n: number): Delivery {
  const event = stripeInvoicePaidEvent({
    eventId,
    invoiceId: `in_${eventId}`,
    customerId: customerOf(n),
    amount: amountOf(n),
    created: 1712917130 + n,
  });
  return signStripe(JSON.stringify(event), TEST_SECRETS.stripe);
}

type Outcome = { status: number; body: string } | { status: "hang" | "refused" | "reset" | "error"; detail: string };

/** A POST as a provider sees it; a connection refused (the listener is closed) is told apart from a hang. */
async function post(url: string, d: Delivery, timeoutMs = 10_000): Promise<Outcome & { ms: number }> {
  const started = performance.now();
  try {
    const res = await fetch(url, {
      method: "POST",
      headers: d.headers,
      body: d.body,
      signal: AbortSignal.timeout(timeoutMs),
    });
    return { status: res.status, body: await res.text(), ms: performance.now() - started };
  } catch (err) {
    const e = err as Error & { cause?: { code?: string; message?: string } };
    const ms = performance.now() - started;
    if (e.name === "TimeoutError") return { status: "hang", detail: e.message, ms };
    const code = e.cause?.code ?? "";
    if (code === "ECONNREFUSED") return { status: "refused", detail: code, ms };
    // The server closed an idle keep-alive socket as this request went out on it: nothing was answered.
    if (code === "ECONNRESET" || code === "UND_ERR_SOCKET")
      return { status: "reset", detail: `${code} ${e.cause?.message ?? ""}`, ms };
    return { status: "error", detail: `${e.name}: ${e.message} ${code}`, ms };
  }
}

/** Runs `fn` over `items` with at most `limit` at a time. */
async function pool<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]!);
      }
    }),
  );
  return out;
}

const idOf = (n: number) => `evt_sigterm_${String(n).padStart(5, "0")}`;

let cluster: Cluster;
const apps: AppProcess[] = [];
const clients: postgres.Sql[] = [];

beforeAll(async () => {
  cluster = await startThrowawayCluster();
}, 180_000);

afterAll(async () => {
  for (const app of apps) await app.stop("SIGKILL");
  for (const sql of clients) await sql.end({ timeout: 5 });
  await cluster?.destroy();
});

async function database(name: string) {
  const url = await cluster.createDatabase(name);
  const sql = postgres(url, { max: 2, onnotice: () => {} });
  clients.push(sql);
  return { url, sql };
}

async function launch(url: string, env: Record<string, string>) {
  const app = await startApp(url, env);
  apps.push(app);
  return app;
}

/** The ledger's state counts. */
async function statusCounts(sql: postgres.Sql): Promise<Record<string, number>> {
  const rows = await sql<
    { status: string; n: number }[]
  >`select status, count(*)::int as n from webhook_event group by status`;
  return Object.fromEntries(rows.map((r) => [r.status, r.n]));
}

/** 3,000 events claimed by an app running no worker (WORKER_MODE=off), which is then stopped. */
async function claimBacklog(dbUrl: string, sql: postgres.Sql): Promise<number[]> {
  const intake = await launch(dbUrl, { WORKER_MODE: "off" });
  const ns = Array.from({ length: EVENTS }, (_, n) => n);
  const started = Date.now();
  // As a provider does, a delivery answered 503 (a claim past its bound on a loaded machine) is sent again.
  const acked = await pool(ns, 32, async (n) => {
    let res = await post(`${intake.url}/api/webhooks/stripe`, delivery(idOf(n), n));
    for (let retry = 0; res.status === 503 && retry < 3; retry++)
      res = await post(`${intake.url}/api/webhooks/stripe`, delivery(idOf(n), n));
    return res;
  });
  console.log(`[sigterm] backlog of ${EVENTS} posted in ${Date.now() - started} ms`);
  expect(acked.filter((a) => a.status !== 200)).toEqual([]);
  await intake.stop("SIGTERM");
  expect(intake.proc.exited).toMatchObject({ code: 0 });
  expect(await statusCounts(sql)).toEqual({ claimed: EVENTS });
  return ns;
}

/** Waits until the worker has settled `atLeast` events; returns the counts then. */
async function waitForSettled(sql: postgres.Sql, atLeast: number): Promise<Record<string, number>> {
  const started = Date.now();
  for (;;) {
    const counts = await statusCounts(sql);
    if ((counts.settled ?? 0) >= atLeast) return counts;
    if (Date.now() - started > 30_000)
      throw new Error(`the worker settled fewer than ${atLeast} in 30 s: ${JSON.stringify(counts)}`);
    await sleep(10);
  }
}

/**
 * One delivery on a raw keep-alive connection, its body sent in two parts: `between` runs after the
 * headers and the first bytes (the server has the request), before the rest. The socket stays open after
 * the answer, as a provider's (or a load balancer's) connection pool keeps it for the next delivery.
 */
async function slowKeepAliveDelivery(port: number, d: Delivery, between: () => Promise<void>) {
  const socket = connect({ host: "127.0.0.1", port });
  socket.on("error", () => {});
  await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
  let received = "";
  let closedAt: number | undefined;
  socket.setEncoding("utf8").on("data", (chunk: string) => (received += chunk));
  socket.on("close", () => (closedAt = Date.now()));
  const body = Buffer.from(d.body);
  const head = [
    "POST /api/webhooks/stripe HTTP/1.1",
    "host: 127.0.0.1",
    "connection: keep-alive",
    `content-length: ${body.length}`,
    ...Object.entries(d.headers).map(([k, v]) => `${k}: ${v}`),
    "",
    "",
  ].join("\r\n");
  socket.write(head);
  socket.write(body.subarray(0, 16));
  await between();
  socket.write(body.subarray(16));
  const deadline = Date.now() + 5000;
  while (!/\r\n\r\n[\s\S]*\}/.test(received) && closedAt === undefined && Date.now() < deadline) await sleep(10);
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1] ?? NaN);
  const connection = /\r\nconnection: ([^\r]*)/i.exec(received)?.[1];
  return { status, connection, response: received, socket, closedAt: () => closedAt };
}

describe("SIGTERM mid-drain", () => {
  it("[faults] SIGTERM mid-drain: exits 0 in time, no 'lease expired', acks stored once, restart finishes", async () => {
    const { url: dbUrl, sql } = await database("faults_sigterm");

    // 1. The backlog: 3,000 events claimed with no worker running.
    const ns = await claimBacklog(dbUrl, sql);

    // 2. Drain with the embedded worker, and SIGTERM once some are settled but most are not.
    const drainer = await launch(dbUrl, DRAIN_ENV);
    const webhookUrl = `${drainer.url}/api/webhooks/stripe`;
    const counts = await waitForSettled(sql, 100);
    console.log(`[sigterm] at SIGTERM: ${JSON.stringify(counts)}`);
    expect(counts.settled ?? 0).toBeLessThan(EVENTS / 2);

    // Deliveries keep arriving through the shutdown (new ids), on keep-alive connections.
    let next = EVENTS;
    const during: { id: string; n: number; outcome: Outcome & { ms: number } }[] = [];
    let exited = false;
    const senders = Array.from({ length: 6 }, async () => {
      while (!exited) {
        const n = next++;
        const outcome = await post(webhookUrl, delivery(idOf(n), n), 5000);
        during.push({ id: idOf(n), n, outcome });
        // Back to back while answered (the next request may go out on a connection the server is closing); paced once refused.
        if (typeof outcome.status !== "number") await sleep(20);
      }
    });
    // SIGTERM once those deliveries are being answered, so the shutdown meets them.
    for (const giveUpAt = Date.now() + 5000; Date.now() < giveUpAt && during.length < 6;) await sleep(10);
    const killedAt = Date.now();
    drainer.proc.kill("SIGTERM");
    const exit = await drainer.proc.waitForExit(SHUTDOWN_TIMEOUT_MS + 10_000);
    const exitMs = Date.now() - killedAt;
    exited = true;
    await Promise.all(senders);
    const stoppedLine = /stopped in (\d+) ms/.exec(drainer.proc.stdout)?.[1];
    const afterExit = await statusCounts(sql);
    const kinds = new Map<string, number>();
    for (const d of during) kinds.set(String(d.outcome.status), (kinds.get(String(d.outcome.status)) ?? 0) + 1);
    console.log(
      `[sigterm] exit ${JSON.stringify(exit)} ${exitMs} ms after SIGTERM (lifecycle: stopped in ${stoppedLine ?? "?"} ms); ` +
        `deliveries during shutdown: ${JSON.stringify(Object.fromEntries(kinds))}; after exit: ${JSON.stringify(afterExit)}`,
    );

    expect.soft(drainer.proc.stdout).not.toMatch(/still draining/);
    expect.soft(exit.code).toBe(0);
    // In time: the lifecycle's own clock (past SHUTDOWN_TIMEOUT_MS it gives up and exits 1); the wall time seen from
    // here adds the process's teardown, a second or more on a loaded machine, so it is only a hang guard.
    expect.soft(Number(stoppedLine)).toBeLessThan(SHUTDOWN_TIMEOUT_MS);
    expect.soft(exitMs).toBeLessThan(SHUTDOWN_TIMEOUT_MS + 5000);
    // Every delivery during the shutdown had an answer (200, or 503 once stopping) or found the listener closed; none hung.
    expect
      .soft(
        during.filter(
          (d) =>
            !(
              d.outcome.status === 200 ||
              d.outcome.status === 503 ||
              d.outcome.status === "refused" ||
              d.outcome.status === "reset"
            ),
        ),
      )
      .toEqual([]);
    expect.soft(during.filter((d) => d.outcome.status === "hang")).toEqual([]);

    // Nothing left mid-lease, nothing for the reaper, nothing acknowledged lost, nothing twice.
    expect.soft(afterExit.processing ?? 0).toBe(0);
    const leaseExpired = await sql<
      { n: number }[]
    >`select count(*)::int as n from webhook_attempt where error like 'lease expired%'`;
    expect.soft(leaseExpired[0]?.n).toBe(0);
    const ackedDuring = during.filter((d) => d.outcome.status === 200).map((d) => d.id);
    const expectedIds = new Set([...ns.map(idOf), ...ackedDuring]);
    const rows = await sql<
      { event_id: string; n: number }[]
    >`select event_id, count(*)::int as n from webhook_event where source = 'stripe' group by event_id`;
    const rowCount = new Map(rows.map((r) => [r.event_id, r.n]));
    expect.soft([...expectedIds].filter((id) => rowCount.get(id) !== 1)).toEqual([]);
    // Besides those, only deliveries whose answer was lost (reset) may have been claimed.
    const unanswered = new Set(during.filter((d) => d.outcome.status !== 200).map((d) => d.id));
    expect.soft(rows.filter((r) => !expectedIds.has(r.event_id) && !unanswered.has(r.event_id))).toEqual([]);
    const resets = during.filter((d) => d.outcome.status === "reset");
    if (resets.length > 0)
      console.log(
        `[sigterm] ${resets.length} reset (no answer), ` +
          `of which in the ledger: ${resets.filter((d) => rowCount.has(d.id)).length}: ` +
          JSON.stringify(resets.map((d) => d.outcome)),
      );
    expect.soft(afterExit.settled ?? 0).toBeGreaterThan(counts.settled ?? 0);
    expect.soft(afterExit.settled ?? 0).toBeLessThan(rows.length);

    // 3. A restart finishes the rest: every event settled, by exactly one settled attempt.
    const finisher = await launch(dbUrl, DRAIN_ENV);
    const finishStarted = Date.now();
    let final: Record<string, number> = {};
    while (Date.now() - finishStarted < 120_000) {
      final = await statusCounts(sql);
      if ((final.settled ?? 0) === rows.length) break;
      await sleep(100);
    }
    console.log(`[sigterm] restart settled the rest in ${Date.now() - finishStarted} ms: ${JSON.stringify(final)}`);
    expect(final).toEqual({ settled: rows.length });
    const attempts = await sql<{ event_id: string; settled: number; other: number }[]>`
        select e.event_id,
               count(a.id) filter (where a.outcome = 'settled')::int as settled,
               count(a.id) filter (where a.outcome <> 'settled')::int as other
        from webhook_event e left join webhook_attempt a on a.source = e.source and a.event_id = e.event_id
        group by e.event_id`;
    expect(attempts.length).toBe(rows.length);
    expect(attempts.filter((a) => a.settled !== 1)).toEqual([]);
    expect(attempts.filter((a) => a.other !== 0)).toEqual([]);

    // Exactly-once, seen in business state: each customer's running total is the sum of its invoices.
    const expected = new Map<string, { amount: number; count: number }>();
    for (const r of rows) {
      const n = Number(r.event_id.slice("evt_sigterm_".length));
      const t = expected.get(customerOf(n)) ?? { amount: 0, count: 0 };
      expected.set(customerOf(n), { amount: t.amount + amountOf(n), count: t.count + 1 });
    }
    const totals = await sql<{ customer_id: string; amount_paid: string; invoice_count: number }[]>`
        select customer_id, amount_paid::text, invoice_count from customer_total where source = 'stripe'`;
    expect(
      Object.fromEntries(totals.map((t) => [t.customer_id, { amount: Number(t.amount_paid), count: t.invoice_count }])),
    ).toEqual(Object.fromEntries(expected));

    await finisher.stop("SIGTERM");
    expect(finisher.proc.exited).toMatchObject({ code: 0 });
  }, 600_000); // a hang guard: beside the other tiers, posting the backlog alone took 110 s and a start 60 s

  // Fails on 0a4f5bf: the answer to a delivery accepted before SIGTERM says `Connection: keep-alive`, so
  // its socket stays open after it; the intake stage waits on server.close(), which waits for every
  // socket, so it only ends when the lifecycle gives up at SHUTDOWN_TIMEOUT_MS (exit 1). Meanwhile the
  // "work" stage never starts: the worker keeps leasing batches until process.exit cuts one short.
  it("[faults] SIGTERM mid-delivery on a keep-alive socket: answered, exit 0 in time, nothing mid-lease", async () => {
    const { url: dbUrl, sql } = await database("faults_sigterm_keepalive");
    await claimBacklog(dbUrl, sql);
    const drainer = await launch(dbUrl, DRAIN_ENV);
    await waitForSettled(sql, 100);

    const n = EVENTS;
    let killedAt = 0;
    const inFlight = await slowKeepAliveDelivery(drainer.port, delivery(idOf(n), n), async () => {
      await sleep(200);
      killedAt = Date.now();
      drainer.proc.kill("SIGTERM");
      // The rest of the body goes out once the process is shutting down, not before.
      await drainer.proc.waitForLine(/SIGTERM: draining/, 5000);
    });
    const exit = await drainer.proc.waitForExit(SHUTDOWN_TIMEOUT_MS + 10_000);
    const exitMs = Date.now() - killedAt;
    const closedMs = (inFlight.closedAt() ?? NaN) - killedAt;
    inFlight.socket.destroy();
    const afterExit = await statusCounts(sql);
    console.log(
      `[sigterm/keep-alive] in-flight delivery: ${inFlight.status} (connection: ${inFlight.connection}); ` +
        `its socket closed by the server ${closedMs} ms after SIGTERM; ` +
        `exit ${JSON.stringify(exit)} ${exitMs} ms after SIGTERM; after exit: ${JSON.stringify(afterExit)}\n` +
        drainer.proc.stdout
          .split("\n")
          .filter((l) => l.startsWith("[receiver]"))
          .join("\n"),
    );

    // Accepted before the signal, so answered; and committed, since it was answered 200.
    expect(inFlight.status).toBe(200);
    const [row] = await sql<{ n: number }[]>`select count(*)::int as n from webhook_event where event_id = ${idOf(n)}`;
    expect(row?.n).toBe(1);
    // An idle keep-alive connection must not hold the drain: exit 0, in time, the worker stopped cleanly.
    expect.soft(drainer.proc.stdout).not.toMatch(/still draining/);
    expect.soft(exit.code).toBe(0);
    expect.soft(Number(/stopped in (\d+) ms/.exec(drainer.proc.stdout)?.[1])).toBeLessThan(SHUTDOWN_TIMEOUT_MS);
    expect.soft(exitMs).toBeLessThan(SHUTDOWN_TIMEOUT_MS + 5000);
    expect.soft(afterExit.processing ?? 0).toBe(0);
  }, 600_000); // a hang guard, as above
});
