import { sql } from "drizzle-orm";
import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rowsOf } from "@/db/client";
import { setupTestDb } from "../db";
import { signStripe, TEST_SECRETS } from "../sign";
import { counts, depsFor } from "./harness";
import { startReceiverServer } from "./http-server";

const { db } = setupTestDb({ max: 10 });
let server: Awaited<ReturnType<typeof startReceiverServer>>;
beforeAll(async () => {
  server = await startReceiverServer(depsFor(db));
});
afterAll(async () => server.close());

describe("concurrent deliveries", () => {
  it("[receiver] 50 copies of one event sent at once over several connections leave exactly one row and 50 × 200", async () => {
    const body = JSON.stringify({
      id: "evt_race",
      object: "event",
      type: "invoice.paid",
      created: 1_764_410_000,
      data: { object: { id: "in_race", object: "invoice", customer: "cus_race" } },
    });
    const deliveries = Array.from({ length: 50 }, () => signStripe(body, TEST_SECRETS.stripe));
    const responses = await Promise.all(
      deliveries.map((d) => postOwnConnection(`${server.url}/api/webhooks/stripe`, d.headers, d.body)),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(50).fill(200));
    expect(responses.filter((r) => r.body.duplicate === false)).toHaveLength(1);
    expect((await counts(db)).events).toBe(1);
    // Past the last few duplicates kept, a row stands for those it replaced: every copy is counted once.
    const [recorded] = rowsOf<{ n: number; claimed: number }>(
      await db.execute(sql`select (count(*) + sum(replaced))::int as n, (count(*) filter (where claimed))::int as claimed
                           from webhook_delivery`),
    );
    expect(recorded).toEqual({ n: 50, claimed: 1 });
  });
});

/** One socket per request (agent: false), so the copies race through separate connections. */
function postOwnConnection(url: string, headers: Record<string, string>, body: string) {
  return new Promise<{ status: number; body: Record<string, unknown> }>((resolve, reject) => {
    const req = httpRequest(url, { method: "POST", headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          body: JSON.parse(Buffer.concat(chunks).toString()) as Record<string, unknown>,
        }),
      );
    });
    req.on("error", reject);
    req.end(body);
  });
}
