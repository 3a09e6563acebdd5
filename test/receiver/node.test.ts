import { sql } from "drizzle-orm";
import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { rowsOf } from "@/db/client";
import { stripeSubscriptionEvent } from "../fixtures/stripe";
import { setupTestDb } from "../db";
import { signStripe, TEST_SECRETS } from "../sign";
import { counts, depsFor } from "./harness";
import { startReceiverServer } from "./http-server";

// server.ts answers POST /api/webhooks/* with this adapter; these tests drive it over real sockets.
const { db } = setupTestDb();
const work: string[] = [];
let server: Awaited<ReturnType<typeof startReceiverServer>>;
let base: string;
beforeAll(async () => {
  server = await startReceiverServer(depsFor(db, { maxBytes: 4096 }), (w) => work.push(`${w.source}/${w.eventId}`));
  base = server.url;
});
afterAll(() => server.close());
beforeEach(() => void (work.length = 0));

function send(path: string, opts: { method?: string; headers?: Record<string, string>; chunks?: string[] }) {
  return new Promise<{ status: number; body: string; headers: Record<string, unknown> }>((resolve, reject) => {
    const req = httpRequest(
      `${base}${path}`,
      { method: opts.method ?? "POST", headers: opts.headers, agent: false },
      (res) => {
        let body = "";
        res.on("data", (c: Buffer) => (body += c.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
      },
    );
    req.on("error", reject);
    for (const c of opts.chunks ?? []) req.write(c);
    req.end();
  });
}

describe("node:http adapter", () => {
  it("[receiver] a signed delivery is claimed once, the duplicate answers 200 without work, cookies are not stored", async () => {
    const d = signStripe(JSON.stringify(stripeSubscriptionEvent({ eventId: "evt_node_1" })), TEST_SECRETS.stripe);
    const headers = { ...d.headers, cookie: "session=secret", "content-type": "application/json" };
    const first = await send("/api/webhooks/stripe", { headers, chunks: [d.body] });
    const again = await send("/api/webhooks/stripe", { headers, chunks: [d.body] });
    expect([first.status, JSON.parse(first.body)]).toEqual([200, { received: true, duplicate: false }]);
    expect([again.status, JSON.parse(again.body)]).toEqual([200, { received: true, duplicate: true }]);
    expect(first.headers["content-type"]).toBe("application/json");
    expect(work).toEqual(["stripe/evt_node_1"]);
    const [row] = rowsOf<{ raw_body: string; headers: Record<string, string> }>(
      await db.execute(sql`select raw_body, headers from webhook_event where event_id = 'evt_node_1'`),
    );
    expect(row?.raw_body).toBe(d.body);
    expect(row?.headers["stripe-signature"]).toBe(d.headers["stripe-signature"]);
    expect(row?.headers.cookie).toBeUndefined();
  });

  it("[receiver] a chunked body past WEBHOOK_MAX_BYTES without Content-Length answers 413 and writes nothing", async () => {
    const d = signStripe(JSON.stringify({ id: "evt_big", type: "x", pad: "a".repeat(5000) }), TEST_SECRETS.stripe);
    const res = await send("/api/webhooks/stripe", {
      headers: { "stripe-signature": d.headers["stripe-signature"]!, "transfer-encoding": "chunked" },
      chunks: [d.body.slice(0, 3000), d.body.slice(3000)],
    });
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body)).toEqual({ error: "body exceeds 4096 bytes" });
    expect(await counts(db)).toEqual({ events: 0, deliveries: 0 });
  });

  it("[receiver] a bad signature answers 401 and a method other than POST answers 405, both writing nothing", async () => {
    const d = signStripe(JSON.stringify(stripeSubscriptionEvent({ eventId: "evt_node_bad" })), "whsec_wrong");
    const bad = await send("/api/webhooks/stripe", { headers: d.headers, chunks: [d.body] });
    const get = await send("/api/webhooks/stripe", { method: "GET" });
    expect([bad.status, JSON.parse(bad.body)]).toEqual([401, { error: expect.stringMatching(/signature/) as unknown }]);
    expect([get.status, get.headers.allow]).toEqual([405, "POST"]);
    expect(await counts(db)).toEqual({ events: 0, deliveries: 0 });
    expect(work).toEqual([]);
  });
});
