import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stripeInvoicePaidEvent } from "@/test/fixtures/stripe";
import { signStripe, TEST_SECRETS } from "@/test/sign";
import { send, startApp, type AppProcess } from "./app";
import { startThrowawayCluster, type Cluster } from "./pg-cluster";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const ENV = { WORKER_LEASE_MS: "1500", WORKER_MODE: "embedded" };
const DISTINCT = 3000;
const SENDERS = 20;
const CUSTOMERS = 5;

interface Planned {
  eventId: string;
  body: string;
}

let cluster: Cluster | undefined;
let dbUrl = "";
const apps: AppProcess[] = [];
let sql: postgres.Sql | undefined;

beforeAll(async () => {
  cluster = await startThrowawayCluster();
  dbUrl = await cluster.createDatabase("faults_kill");
});

afterAll(async () => {
  for (const app of apps) if (!app.proc.exited) app.proc.kill("SIGKILL");
  for (const app of apps) await app.proc.waitForExit(5000).catch(() => {});
  await sql?.end({ timeout: 1 });
  await cluster?.destroy();
});

describe("app process killed under load", () => {
  it("[faults] SIGKILL under load, restart: each 2xx'd event stored once, none processing past its lease", async () => {
    // Distinct invoice.paid events, each with its own amount so a doubled or lost effect shows in the sum.
    const amountOf = new Map<string, number>();
    const bodyOf = new Map<string, string>();
    const expectedByCustomer = new Map<string, { amount: number; count: number }>();
    for (let i = 0; i < DISTINCT; i++) {
      const eventId = `evt_kill_${String(i).padStart(5, "0")}`;
      const customerId = `cus_Kill${i % CUSTOMERS}`;
      const amount = 100 + i;
      const body = JSON.stringify(
        stripeInvoicePaidEvent({ eventId, invoiceId: `in_kill_${i}`, customerId, amount, created: 1_712_917_130 + i }),
      );
      amountOf.set(eventId, amount);
      bodyOf.set(eventId, body);
      const e = expectedByCustomer.get(customerId) ?? { amount: 0, count: 0 };
      expectedByCustomer.set(customerId, { amount: e.amount + amount, count: e.count + 1 });
    }
    // The send order: every event once, and about one delivery in six a duplicate of an earlier id.
    const plan: Planned[] = [];
    let dupSeed = 7;
    for (let i = 0; i < DISTINCT; i++) {
      const eventId = `evt_kill_${String(i).padStart(5, "0")}`;
      plan.push({ eventId, body: bodyOf.get(eventId)! });
      if (i > 10 && i % 6 === 0) {
        dupSeed = (dupSeed * 7919 + 13) % 104_729;
        const earlier = `evt_kill_${String(dupSeed % i).padStart(5, "0")}`;
        plan.push({ eventId: earlier, body: bodyOf.get(earlier)! });
      }
    }

    sql = postgres(dbUrl, { max: 2, onnotice: () => {}, connect_timeout: 5 });
    const first = await startApp(dbUrl, ENV);
    apps.push(first);
    const target = `${first.url}/api/webhooks/stripe`;

    const got200 = new Set<string>();
    const otherAnswers = new Map<string, number>(); // status (or "error"/"hang") before the restart → count
    let next = 0;
    let killed = false;
    const sender = async () => {
      while (!killed && next < plan.length) {
        const item = plan[next++]!;
        const r = await send(target, signStripe(item.body, TEST_SECRETS.stripe), 10_000);
        if (r.status === 200) got200.add(item.eventId);
        else otherAnswers.set(String(r.status), (otherAnswers.get(String(r.status)) ?? 0) + 1);
      }
    };

    // Kill once the load is well under way and the test sees an event held by the worker (status
    // 'processing'), so the kill lands on work in progress rather than on an idle worker.
    const killer = async () => {
      const deadline = Date.now() + 30_000;
      while (got200.size < 300 && Date.now() < deadline) await sleep(5);
      for (;;) {
        if (Date.now() > deadline) throw new Error("no event was seen in 'processing' under load");
        const [row] = await sql!<
          { n: number }[]
        >`select count(*)::int as n from webhook_event where status = 'processing'`;
        if ((row?.n ?? 0) > 0) break;
        await sleep(2);
      }
      first.proc.kill("SIGKILL");
      killed = true;
    };

    await Promise.all([killer(), ...Array.from({ length: SENDERS }, sender)]);
    expect(await first.proc.waitForExit(5000)).toMatchObject({ signal: "SIGKILL" });
    const sentBeforeKill = next;
    expect(sentBeforeKill).toBeLessThan(plan.length); // the kill landed mid-load

    // Nothing runs now: what is 'processing' was held by the dead process.
    const processingAtKill = (
      await sql<{ event_id: string }[]>`select event_id from webhook_event where status = 'processing'`
    ).map((r) => r.event_id);
    console.log(
      `[faults/kill] killed after ${sentBeforeKill}/${plan.length} deliveries; ${got200.size} ids answered 200; ` +
        `other answers ${JSON.stringify(Object.fromEntries(otherAnswers))}; ${processingAtKill.length} events left 'processing'`,
    );
    expect(processingAtKill.length).toBeGreaterThan(0);

    // Restart on the same port with the same environment; the provider retries every id it has no 2xx for.
    const second = await startApp(dbUrl, ENV, first.port);
    apps.push(second);
    const retry = [...bodyOf.keys()].filter((id) => !got200.has(id));
    const retryAnswers: { id: string; status: number | string }[] = [];
    let r = 0;
    await Promise.all(
      Array.from({ length: SENDERS }, async () => {
        while (r < retry.length) {
          const id = retry[r++]!;
          const a = await send(
            `${second.url}/api/webhooks/stripe`,
            signStripe(bodyOf.get(id)!, TEST_SECRETS.stripe),
            10_000,
          );
          retryAnswers.push({ id, status: a.status });
          if (a.status === 200) got200.add(id);
        }
      }),
    );
    expect(retryAnswers.filter((a) => a.status !== 200)).toEqual([]);
    expect(got200.size).toBe(DISTINCT);

    // The restarted worker reaps the dead process's expired leases and retries them.
    const settleDeadline = Date.now() + 20_000;
    let pending = -1;
    while (Date.now() < settleDeadline) {
      const [row] = await sql<
        { n: number }[]
      >`select count(*)::int as n from webhook_event where status in ('claimed', 'processing', 'failed')`;
      pending = row?.n ?? -1;
      if (pending === 0) break;
      await sleep(100);
    }
    expect(pending).toBe(0);

    // Every 2xx'd id: exactly one ledger row, settled (none stuck in 'processing', none dead).
    const events = await sql<{ event_id: string; status: string; rows: number }[]>`
        select event_id, min(status) as status, count(*)::int as rows from webhook_event where source = 'stripe' group by event_id`;
    expect(events.length).toBe(DISTINCT);
    expect(new Set(events.map((e) => e.event_id))).toEqual(got200);
    expect(events.filter((e) => e.rows !== 1)).toEqual([]);
    expect(events.filter((e) => e.status !== "settled")).toEqual([]);
    const [leased] = await sql<
      { n: number }[]
    >`select count(*)::int as n from webhook_event where lease_token is not null or lease_expires_at is not null`;
    expect(leased?.n).toBe(0);

    // Exactly one settled attempt per event.
    const settledAttempts = await sql<{ event_id: string; settled: number }[]>`
        select e.event_id, count(a.id) filter (where a.outcome = 'settled')::int as settled
        from webhook_event e left join webhook_attempt a on a.source = e.source and a.event_id = e.event_id
        group by e.event_id having count(a.id) filter (where a.outcome = 'settled') <> 1`;
    expect(settledAttempts).toEqual([]);

    // Those held when the process died: a failed 'lease expired' attempt, then a later settled one.
    const attempts = await sql<{ event_id: string; number: number; outcome: string; error: string | null }[]>`
        select event_id, number, outcome, error from webhook_attempt where event_id in ${sql(processingAtKill)} order by event_id, number, id`;
    for (const id of processingAtKill) {
      const mine = attempts.filter((a) => a.event_id === id);
      const expired = mine.find((a) => a.outcome === "failed" && /^lease expired/.test(a.error ?? ""));
      const settled = mine.find((a) => a.outcome === "settled");
      expect({ id, expired: !!expired, settled: !!settled }).toEqual({ id, expired: true, settled: true });
      expect(settled!.number).toBeGreaterThan(expired!.number);
    }

    // Each invoice.paid applied once: totals equal the sums over distinct ids.
    const totals = await sql<{ customer_id: string; amount: string; count: number }[]>`
        select customer_id, amount_paid::text as amount, invoice_count as count from customer_total where source = 'stripe' order by customer_id`;
    expect(
      Object.fromEntries(totals.map((t) => [t.customer_id, { amount: Number(t.amount), count: t.count }])),
    ).toEqual(Object.fromEntries([...expectedByCustomer.entries()].sort(([a], [b]) => (a < b ? -1 : 1))));
    const sumDistinct = [...amountOf.values()].reduce((s, a) => s + a, 0);
    expect(totals.reduce((s, t) => s + Number(t.amount), 0)).toBe(sumDistinct);
  }, 240_000);
});
