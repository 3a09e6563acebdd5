import { sql } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { parseEnv } from "@/lib/env";
import { confirmFromProviders } from "@/lib/replay/confirm";
import { setupTestDb } from "../db";
import { stripeInvoicePaidEvent } from "../fixtures/stripe";
import { startFakeApi, stripeRoute, type FakeApi } from "../replay/fake-api";
import { apiConfig, STRIPE_KEY } from "../replay/helpers";
import { query } from "../worker/helpers";
import { counts, depsFor, post } from "./harness";

const { db } = setupTestDb();
const TOKEN = "stripe-replay-token-0123456789abcdef012345";
const OTHER = "github-replay-token-0123456789abcdef012345";
let api: FakeApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

const unsigned = (body: unknown) => ({ body: JSON.stringify(body), headers: { "content-type": "application/json" } });

describe("the replay token", () => {
  it("[receiver] a replay token shorter than 32 characters, or a REPLAY_TOKENS entry without a source, is refused at start-up", () => {
    expect(() => parseEnv({ REPLAY_TOKEN: "short-token" })).toThrow(/REPLAY_TOKEN must be at least 32 characters/);
    expect(() => parseEnv({ REPLAY_TOKENS: `${TOKEN}` })).toThrow(/REPLAY_TOKENS entries look like source:<token/);
    expect(parseEnv({ REPLAY_TOKENS: `stripe:${TOKEN},github:${OTHER}` }).REPLAY_TOKENS).toEqual({
      stripe: [TOKEN],
      github: [OTHER],
    });
  });

  it("[receiver] a token scoped to one source is refused by every other source", async () => {
    const deps = depsFor(db, { replayTokens: { stripe: [TOKEN] } });
    const github = await post(deps, "github", unsigned({ zen: "x" }), {
      "x-replay-token": TOKEN,
      "x-github-delivery": "d-1",
      "x-github-event": "ping",
    });
    expect(github).toMatchObject({ status: 401 });
    const stripe = await post(deps, "stripe", unsigned(stripeInvoicePaidEvent({ eventId: "evt_scoped" })), {
      "x-replay-token": TOKEN,
    });
    expect(stripe.status).toBe(200);
    expect(await counts(db)).toEqual({ events: 1, deliveries: 1 });
  });

  it("[receiver] wrong replay tokens are throttled: after 10 failures a minute every further try answers 429, even the right token", async () => {
    const deps = depsFor(db, { replayTokens: { stripe: [TOKEN] } });
    const answers = [];
    for (let i = 0; i < 25; i++)
      answers.push(
        (
          await post(deps, "stripe", unsigned({ id: `evt_guess${i}` }), {
            "x-replay-token": `guess-${i}-${"x".repeat(30)}`,
          })
        ).status,
      );
    expect(answers.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(answers.slice(10)).toEqual(Array(15).fill(429));
    const right = await post(deps, "stripe", unsigned(stripeInvoicePaidEvent({ eventId: "evt_after" })), {
      "x-replay-token": TOKEN,
    });
    expect(right.status).toBe(429);
    expect(await counts(db)).toEqual({ events: 0, deliveries: 0 });
  });

  describe("with a Stripe API key configured", () => {
    const real = stripeInvoicePaidEvent({
      eventId: "evt_RealAtStripe01",
      customerId: "cus_Real00000001",
      amount: 2000,
    });
    const withProvider = async () => {
      api = await startFakeApi(stripeRoute([real], STRIPE_KEY));
      return {
        ...depsFor(db, { replayTokens: { stripe: [TOKEN] } }),
        confirmReplay: confirmFromProviders(apiConfig({ stripe: api.url }), { attempts: 1 }),
      };
    };

    it("[receiver] a replayed event is stored as the provider's own copy, not as posted (a forged amount is not kept)", async () => {
      const deps = await withProvider();
      const forged = structuredClone(real);
      (forged.data.object as { amount_paid: number }).amount_paid = 1_000_000_000_000;
      expect((await post(deps, "stripe", unsigned(forged), { "x-replay-token": TOKEN })).status).toBe(200);
      const [row] = await query<{ amount: string; via: string }>(
        db,
        sql`select coalesce(payload, raw_body::jsonb)->'data'->'object'->>'amount_paid' as amount, via from webhook_event`,
      );
      expect(row).toEqual({ amount: "2000", via: "replay" });
      expect(api!.requests.map((r) => r.path)).toEqual(["/v1/events/evt_RealAtStripe01"]);
    });

    it("[receiver] an event the provider does not have cannot be replayed into the ledger (422, nothing written)", async () => {
      const deps = await withProvider();
      const invented = stripeInvoicePaidEvent({ eventId: "evt_Invented000001", amount: 1_000_000_000_000 });
      const res = await post(deps, "stripe", unsigned(invented), { "x-replay-token": TOKEN });
      expect(res).toMatchObject({
        status: 422,
        body: { error: "the provider has no event evt_Invented000001: a replay token brings back real events only" },
      });
      expect(await counts(db)).toEqual({ events: 0, deliveries: 0 });
    });
  });
});
