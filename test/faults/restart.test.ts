import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stripeInvoicePaidEvent } from "../fixtures/stripe";
import { signStripe, TEST_SECRETS } from "../sign";
import { send, startApp, type AppProcess } from "./app";
import { startThrowawayCluster, type Cluster } from "./pg-cluster";

let cluster: Cluster;
let dbUrl: string;
let app: AppProcess;

beforeAll(async () => {
  cluster = await startThrowawayCluster();
  dbUrl = await cluster.createDatabase("ledger_restart");
  app = await startApp(dbUrl, { WEBHOOK_CLAIM_TIMEOUT_MS: "2000" });
}, 180_000);

afterAll(async () => {
  await app?.stop("SIGKILL");
  await cluster?.destroy();
});

interface Answer {
  id: string;
  status: number | "hang" | "error";
  /** The answer's body (the reason of a 503), for a failure's message. */
  body?: string;
  startedAt: number;
  endedAt: number;
}

/** 40 senders, each posting a new signed event as soon as its last one was answered, until stopped. */
function load(tag: string, senders = 40) {
  const answers: Answer[] = [];
  let stop = false;
  let n = 0;
  const loops = Array.from({ length: senders }, async () => {
    while (!stop) {
      const id = `evt_${tag}_${String(n++).padStart(6, "0")}`;
      const body = JSON.stringify(
        stripeInvoicePaidEvent({ eventId: id, invoiceId: `in_${id}`, customerId: "cus_Restart00001", amount: 100 }),
      );
      const startedAt = Date.now();
      const r = await send(`${app.url}/api/webhooks/stripe`, signStripe(body, TEST_SECRETS.stripe), 10_000);
      answers.push({ id, status: r.status, body: r.body, startedAt, endedAt: Date.now() });
      if (r.status !== 200) await new Promise((res) => setTimeout(res, 50)); // a provider backs off a little
    }
  });
  return {
    answers,
    stop: async () => {
      stop = true;
      await Promise.all(loops);
    },
  };
}

/** The app's warnings and errors logged at or after `since` (pino JSON lines), the first 20. */
function warningsSince(stderr: string, since: number): string {
  const lines = stderr.split("\n").filter((line) => {
    if (!/"level":"(warn|error|fatal)"/.test(line)) return false;
    const time = /"time":"([^"]+)"/.exec(line)?.[1];
    return time !== undefined && Date.parse(time) >= since;
  });
  return `app warnings since recovery:\n${lines.slice(0, 20).join("\n")}`;
}

describe("PostgreSQL restarted under load", () => {
  for (const mode of ["fast", "immediate"] as const) {
    it(`[faults] '${mode}' restart: only 200/503, 200 within 5 s of accepting, acks stored once, none uncaught`, async () => {
      const traffic = load(mode);
      await new Promise((r) => setTimeout(r, 1500));
      // Down about as long as observed in the issue: 1 s for immediate, 5 s for fast.
      const timings = await cluster.restart(mode, mode === "fast" ? 5000 : 1000);
      // The load goes on until a delivery sent after PostgreSQL accepted again got its 200, and 4 s past that
      // (the window "after recovery" below); bounded, so no recovery fails the assertions rather than hanging.
      for (const giveUpAt = Date.now() + 15_000; Date.now() < giveUpAt;) {
        const firstOk = traffic.answers.find((a) => a.status === 200 && a.startedAt >= timings.acceptingAt);
        if (firstOk && Date.now() > firstOk.endedAt + 4000) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      await traffic.stop();
      const { answers } = traffic;

      if (process.env.FAULT_DEBUG) console.log(app.proc.stderr.slice(-3000), app.proc.exited);
      const statuses = new Set(answers.map((a) => a.status));
      expect([...statuses].sort()).toEqual([...statuses].filter((s) => s === 200 || s === 503).sort());
      expect(answers.filter((a) => a.startedAt > timings.stoppedAt && a.status === 503).length).toBeGreaterThan(0); // the fault was felt
      // Recovery: the first 200 for a delivery sent after PostgreSQL accepted connections again.
      const recovered = answers
        .filter((a) => a.status === 200 && a.startedAt >= timings.acceptingAt)
        .sort((a, b) => a.endedAt - b.endedAt)[0];
      expect(recovered, "no 200 after the restart").toBeDefined();
      if (process.env.FAULT_DEBUG)
        console.log(
          `recovered ${recovered!.endedAt - timings.acceptingAt} ms after accepting; ${answers.length} answers`,
        );
      expect(recovered!.endedAt - timings.acceptingAt).toBeLessThan(5000);
      // After recovery nothing but 200s.
      const late = answers.filter((a) => a.startedAt > recovered!.endedAt + 500);
      expect(late.length).toBeGreaterThan(0);
      // A failure names each late non-200 (what it said, when, how long it took) and what the app warned about
      // since recovery: a rare one (CI, once) must be explainable from its log alone.
      const lateFailures = late
        .filter((a) => a.status !== 200)
        .slice(0, 10)
        .map(
          (a) =>
            `${a.id}: ${a.status} sent ${a.startedAt - recovered!.endedAt} ms after recovery, ` +
            `answered in ${a.endedAt - a.startedAt} ms: ${a.body ?? ""}`,
        );
      expect(lateFailures, warningsSince(app.proc.stderr, recovered!.endedAt)).toEqual([]);

      const acked = answers.filter((a) => a.status === 200).map((a) => a.id);
      const sql = postgres(dbUrl, { max: 1, onnotice: () => {} });
      try {
        const rows = await sql<{ event_id: string; n: number }[]>`
            select event_id, count(*)::int as n from webhook_event where event_id = any(${acked}) group by event_id`;
        expect(rows.length).toBe(acked.length);
        expect(rows.every((r) => r.n === 1)).toBe(true);
      } finally {
        await sql.end();
      }
      expect(app.proc.exited).toBeUndefined();
      expect(app.proc.stderr).not.toMatch(/TypeError|Uncaught|unhandled/i);
    }, 180_000);
  }
});
