import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { sql } from "drizzle-orm";
import { rowsOf, type Db } from "@/db/client";
import { createAlertEvaluator, type AlertEvaluator, type AlertSettings } from "@/lib/alerts/evaluator";
import { alertChannelsFromEnv, type ChannelsEnv } from "@/lib/alerts/channels";
import type { ListedSource } from "@/lib/alerts/conditions";
import { defaultRules, type RuleDefaults } from "@/lib/alerts/rules";
import { seedEvents } from "@/test/seed-events";

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

export type Answer = number | "hang" | { status: number; headers: Record<string, string> };

/** A real HTTP server on loopback standing in for Slack or a receiver: records each request, answers as told. */
export interface FakeChannel {
  url: string;
  received: Received[];
  close(): Promise<void>;
}

export async function fakeChannel(
  answer: (n: number, req: Received) => Answer = () => 200,
  path = "/services/T0000/B0000/XXXXsecretTOKENxxxx",
): Promise<FakeChannel> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const r = {
        path: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
        at: Date.now(),
      };
      received.push(r);
      const a = answer(received.length, r);
      if (a === "hang") return; // never answers
      const { status, headers } = typeof a === "number" ? { status: a, headers: {} } : a;
      res.writeHead(status, { "content-type": "text/plain", ...headers });
      res.end(status < 300 ? "ok" : "SECRET-RESPONSE-BODY");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

export function testAlertSettings(over: Partial<AlertSettings> = {}): AlertSettings {
  return {
    evaluatorId: "test-evaluator",
    evaluateMs: 60_000,
    sendTimeoutMs: 2000,
    maxAttempts: 5,
    backoffBaseMs: 300,
    backoffMaxMs: 2000,
    batchSize: 20,
    consoleUrl: "https://ledger.example.com",
    ...over,
  };
}

export function evaluator(
  db: Db,
  opts: {
    env?: Partial<ChannelsEnv & RuleDefaults>;
    settings?: Partial<AlertSettings>;
    sources?: ListedSource[];
    log?: (m: string) => void;
  } = {},
): AlertEvaluator {
  const env = opts.env ?? {};
  return createAlertEvaluator({
    getDb: async () => db,
    settings: testAlertSettings(opts.settings),
    channels: alertChannelsFromEnv(env),
    defaults: defaultRules(env),
    listSources: async () => opts.sources ?? [],
    log: opts.log,
  });
}

/** A ledger row as the worker leaves it, without going through the worker. */
export async function insertEvent(
  db: Db,
  e: { source?: string; eventId: string; status: string; attempts?: number; dueMinutesAgo?: number },
): Promise<void> {
  await seedEvents(
    db,
    "source, event_id, event_type, payload, raw_body, headers, status, attempts, next_attempt_at, received_at",
    sql`
    values (${e.source ?? "stripe"}, ${e.eventId}, 'invoice.paid', '{}'::jsonb, '{}', '{}'::jsonb, ${e.status},
            ${e.attempts ?? 8}, now() - make_interval(mins => ${e.dueMinutesAgo ?? 0}::int),
            now() - make_interval(mins => ${e.dueMinutesAgo ?? 0}::int))`,
  );
}

export async function query<T>(db: Db, q: ReturnType<typeof sql>): Promise<T[]> {
  return rowsOf<T>(await db.execute(q));
}

export async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`condition not met within ${timeoutMs} ms`);
}
