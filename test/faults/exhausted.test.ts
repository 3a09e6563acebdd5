import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stripeInvoicePaidEvent } from "@/test/fixtures/stripe";
import { signStripe, TEST_SECRETS } from "@/test/sign";
import { send, startApp, type AppProcess } from "./app";
import { startThrowawayCluster, type Cluster } from "./pg-cluster";
import { waitForHttp } from "./processes";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const MAX_CONNECTIONS = 20;
const CLAIM_TIMEOUT_MS = 1500;
const SLACK_MS = 1500;
const DELIVERIES = 30;

let cluster: Cluster | undefined;
let dbUrl = "";
let app: AppProcess | undefined;
const idle: postgres.Sql[] = [];

beforeAll(async () => {
  cluster = await startThrowawayCluster({ maxConnections: MAX_CONNECTIONS });
  dbUrl = await cluster.createDatabase("faults_exhausted");
});

afterAll(async () => {
  if (app && !app.proc.exited) app.proc.kill("SIGKILL");
  await app?.proc.waitForExit(5000).catch(() => {});
  await Promise.all(idle.splice(0).map((c) => c.end({ timeout: 1 }).catch(() => {})));
  await cluster?.destroy();
});

function errorCode(p: Promise<unknown>): Promise<string> {
  return p.then(
    () => "ok",
    (e: Error & { code?: string }) => e.code ?? e.message,
  );
}

describe("PostgreSQL out of connections", () => {
  it("[faults] connections all taken: 503 within the claim bound, not a hang; 200 once they free up", async () => {
    app = await startApp(dbUrl, { WEBHOOK_CLAIM_TIMEOUT_MS: String(CLAIM_TIMEOUT_MS) });
    // Health runs on the main pool; no delivery has been sent, so the claim pool (it connects lazily) is empty.
    await waitForHttp(`${app.url}/api/health`, { expectStatus: 200, timeoutMs: 15_000 });

    // Take every slot left (postgres is a superuser, so superuser_reserved_connections does not hold any
    // back) with idle clients, until the server turns the next one away with 53300 "too many clients".
    let refusal = "";
    for (let i = 0; i < MAX_CONNECTIONS + 5 && !refusal; i++) {
      // fetch_types: false: no startup query whose failure would go unhandled (see pg-cluster.ts).
      const c = postgres(dbUrl, {
        max: 1,
        connect_timeout: 5,
        fetch_types: false,
        idle_timeout: 0,
        onnotice: () => {},
      });
      const code = await errorCode(c`select 1`);
      if (code === "ok") idle.push(c);
      else {
        refusal = code;
        await c.end({ timeout: 1 }).catch(() => {});
      }
    }
    expect(refusal).toBe("53300");
    // What the app holds now (the worker's and health's main pool); none of it is the claim pool's. This
    // is checked, not assumed: had the claim pool a connection, claims would go through and this test
    // would have to pg_terminate_backend the app's connections first.
    const held = await idle[0]!<{ app: string; n: number }[]>`
        select application_name as app, count(*)::int as n from pg_stat_activity where backend_type = 'client backend' group by 1 order by 1`;
    console.log(
      `[faults/exhausted] ${idle.length} idle test clients; connections by application: ${JSON.stringify(held)}`,
    );
    expect(held.find((h) => h.app === "webhook-ledger claims")).toBeUndefined();

    const deliveries = Array.from({ length: DELIVERIES }, (_, i) => {
      const eventId = `evt_exhausted_${i}`;
      return {
        eventId,
        body: JSON.stringify(
          stripeInvoicePaidEvent({
            eventId,
            invoiceId: `in_exhausted_${i}`,
            customerId: "cus_Exhausted",
            amount: 100 + i,
          }),
        ),
      };
    });
    const target = `${app.url}/api/webhooks/stripe`;
    // The sender's own limit is well past the bound, so a hang shows as "hang", not as an error.
    const answers = await Promise.all(
      deliveries.map((d) => send(target, signStripe(d.body, TEST_SECRETS.stripe), 10_000)),
    );
    const summary = answers.map((a) => ({
      status: a.status,
      retryAfter: a.retryAfter ?? null,
      withinBound: a.ms <= CLAIM_TIMEOUT_MS + SLACK_MS,
    }));
    console.log(
      `[faults/exhausted] answers while exhausted: ${JSON.stringify(answers.map((a) => `${a.status}/${Math.round(a.ms)}ms`))}`,
    );
    expect(
      summary.filter((s) => s.status !== 503 || !s.retryAfter || !/^\d+$/.test(s.retryAfter) || !s.withinBound),
    ).toEqual([]);
    // The 503s are the server's refusal, as the app logs it (not some other failure).
    expect(app.proc.stderr).toMatch(/too many clients|53300/);

    // Free the slots; the same process (no restart) answers 200 again, for the very events the
    // provider would now retry.
    const pid = app.proc.pid;
    await Promise.all(idle.splice(0).map((c) => c.end({ timeout: 1 })));
    const freedAt = Date.now();
    const pending = new Set(deliveries.map((d) => d.eventId));
    const last = new Map<string, number | string>();
    while (pending.size > 0 && Date.now() - freedAt < 5000) {
      await Promise.all(
        deliveries
          .filter((d) => pending.has(d.eventId))
          .map(async (d) => {
            const a = await send(target, signStripe(d.body, TEST_SECRETS.stripe), 10_000);
            last.set(d.eventId, a.status);
            if (a.status === 200) pending.delete(d.eventId);
          }),
      );
      if (pending.size > 0) await sleep(100);
    }
    const recoveredMs = Date.now() - freedAt;
    console.log(`[faults/exhausted] all ${DELIVERIES} answered 200 ${recoveredMs} ms after the connections were freed`);
    expect([...pending].map((id) => ({ id, last: last.get(id) }))).toEqual([]);
    expect(app.proc.exited).toBeUndefined();
    expect(app.proc.pid).toBe(pid);

    // And they were claimed once each, now that the ledger could be written.
    const check = postgres(dbUrl, { max: 1, onnotice: () => {} });
    try {
      const [row] = await check<
        { n: number }[]
      >`select count(*)::int as n from webhook_event where event_id like 'evt_exhausted_%'`;
      expect(row?.n).toBe(DELIVERIES);
    } finally {
      await check.end({ timeout: 1 });
    }
  }, 90_000);
});
