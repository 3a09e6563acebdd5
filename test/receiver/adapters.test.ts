import { sql } from "drizzle-orm";
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rowsOf } from "@/db/client";
import { receiveWebhook } from "@/lib/receiver/receive";
import { setupTestDb } from "../db";
import { signStripe, TEST_SECRETS, type Delivery } from "../sign";
import { depsFor } from "./harness";
import { startReceiverServer } from "./http-server";

const { db } = setupTestDb();
const deps = depsFor(db, { maxBytes: 4096, maxDepth: 8 });
let server: Awaited<ReturnType<typeof startReceiverServer>>;
beforeAll(async () => {
  server = await startReceiverServer(deps);
});
afterAll(async () => {
  await server.close();
});

const body = (id: string, extra = "") =>
  JSON.stringify({
    id,
    object: "event",
    type: "invoice.paid",
    created: 1_760_000_000,
    data: { object: { id: "in_1" } },
  }).replace('"data"', `${extra}"data"`);

// Each case once through each adapter, with ids of their own so neither sees the other's claims.
const cases: [string, (tag: string) => { source: string; d: Delivery }][] = [
  ["a new event", (t) => ({ source: "stripe", d: signStripe(body(`evt_new_${t}`), TEST_SECRETS.stripe) })],
  ["a bad signature", (t) => ({ source: "stripe", d: signStripe(body(`evt_bad_${t}`), "whsec_wrong") })],
  ["not JSON", () => ({ source: "stripe", d: signStripe("id=1&type=x", TEST_SECRETS.stripe) })],
  [
    "too deep",
    (t) => ({
      source: "stripe",
      d: signStripe(body(`evt_deep_${t}`, `"x":${"[".repeat(20)}${"]".repeat(20)},`), TEST_SECRETS.stripe),
    }),
  ],
  [
    "too large",
    (t) => ({
      source: "stripe",
      d: signStripe(body(`evt_big_${t}`, `"pad":"${"x".repeat(5000)}",`), TEST_SECRETS.stripe),
    }),
  ],
  ["an unknown source", (t) => ({ source: "mailgun", d: signStripe(body(`evt_unknown_${t}`), TEST_SECRETS.stripe) })],
  [
    "no event id",
    () => ({ source: "stripe", d: signStripe(JSON.stringify({ object: "event", type: "x" }), TEST_SECRETS.stripe) }),
  ],
];

/** The id a case used, replaced by a placeholder, so the two adapters' answers compare as equal. */
const normal = (text: string) => text.replaceAll(/_(fetch|node)\b/g, "_*");

describe("the two HTTP adapters", () => {
  it("[receiver] server.ts's node:http adapter and the Fetch adapter behind Next's route handler give the same answer to every kind of delivery", async () => {
    for (const [name, make] of cases) {
      const viaFetch = make("fetch");
      const fetchRes = (
        await receiveWebhook(
          viaFetch.source,
          new Request(`http://ledger.test/api/webhooks/${viaFetch.source}`, {
            method: "POST",
            headers: viaFetch.d.headers,
            body: viaFetch.d.body,
          }),
          deps,
        )
      ).response;
      const viaNode = make("node");
      const nodeRes = await fetch(`${server.url}/api/webhooks/${viaNode.source}`, {
        method: "POST",
        headers: viaNode.d.headers,
        body: viaNode.d.body,
      });
      expect([name, nodeRes.status, normal(await nodeRes.text())]).toEqual([
        name,
        fetchRes.status,
        normal(await fetchRes.text()),
      ]);
    }
  });

  it('[receiver] a header sent twice is stored once, its values joined with ", " and its name in lower case, by either adapter', async () => {
    const viaFetch = signStripe(body("evt_twice_fetch"), TEST_SECRETS.stripe);
    const fetchRes = await receiveWebhook(
      "stripe",
      new Request("http://ledger.test/api/webhooks/stripe", {
        method: "POST",
        headers: [...Object.entries(viaFetch.headers), ["X-Trace", "a"], ["x-trace", "b"]],
        body: viaFetch.body,
      }),
      deps,
    );
    expect(fetchRes.response.status).toBe(200);
    const viaNode = signStripe(body("evt_twice_node"), TEST_SECRETS.stripe);
    const status = await new Promise<number>((resolve, reject) => {
      // node:http sends each value of an array as a header line of its own: the server sees the name twice.
      const req = request(`${server.url}/api/webhooks/stripe`, {
        method: "POST",
        headers: { ...viaNode.headers, "X-Trace": ["a", "b"] },
      });
      req.on("response", (res) => (res.resume(), resolve(res.statusCode ?? 0)));
      req.on("error", reject);
      req.end(viaNode.body);
    });
    expect(status).toBe(200);
    const stored = rowsOf<{ event_id: string; trace: string; signature: string }>(
      await db.execute(sql`
        select event_id, headers->>'x-trace' as trace, headers->>'stripe-signature' as signature
        from webhook_event_body where event_id in ('evt_twice_fetch', 'evt_twice_node') order by event_id`),
    );
    expect(stored).toEqual([
      { event_id: "evt_twice_fetch", trace: "a, b", signature: viaFetch.headers["stripe-signature"] },
      { event_id: "evt_twice_node", trace: "a, b", signature: viaNode.headers["stripe-signature"] },
    ]);
  });
});
