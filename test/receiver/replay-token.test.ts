import { sql } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { parseEnv } from "@/lib/env";
import { PROVIDERS } from "@/lib/providers";
import { ReplayTokenGuard } from "@/lib/receiver/replay-token";
import { confirmFromProviders } from "@/lib/replay/confirm";
import type { SourceOrigin } from "@/lib/sources/types";
import { setupTestDb } from "../db";
import { stripeInvoicePaidEvent } from "../fixtures/stripe";
import { startFakeApi, stripeRoute, type FakeApi } from "../replay/fake-api";
import { apiConfig, STRIPE_KEY } from "../replay/helpers";
import { query } from "../worker/helpers";
import { testSource, testSources } from "../sources";
import { TEST_SECRETS } from "../sign";
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
  it("[receiver] a replay token shorter than 32 characters is refused at start-up; bare tokens serve every source, source:token one", () => {
    expect(() => parseEnv({ REPLAY_TOKEN: "short-token" })).toThrow(
      /REPLAY_TOKEN entries must be at least 32 characters/,
    );
    expect(() => parseEnv({ REPLAY_TOKEN: `stripe:short` })).toThrow(/one for "stripe" is shorter/);
    expect(parseEnv({ REPLAY_TOKEN: `stripe:${TOKEN},github:${OTHER},${OTHER}` }).REPLAY_TOKEN).toEqual({
      stripe: [TOKEN],
      github: [OTHER],
      "*": [OTHER],
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

  it("[receiver] a source slugged after an Object property (constructor, __proto__) has only the tokens configured for it", () => {
    const guard = new ReplayTokenGuard({ stripe: [TOKEN] });
    for (const slug of ["constructor", "__proto__", "toString"])
      expect(guard.check(slug, TOKEN)).toMatchObject({ ok: false, status: 401 });
    expect(new ReplayTokenGuard({ "*": [TOKEN] }).check("constructor", TOKEN)).toEqual({ ok: true, scope: "global" });
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

  describe("for every Stripe source, not only the one STRIPE_WEBHOOK_SECRET declares", () => {
    const GLOBAL = "global-replay-token-0123456789abcdef-0123";
    const EU_TOKEN = "stripe-eu-replay-token-0123456789abcdef-01";
    const EU_KEY = "sk_test_51EuropeKeyThatMustNeverBeLogged";
    const real = stripeInvoicePaidEvent({
      eventId: "evt_RealInEurope01",
      customerId: "cus_Eu0000000001",
      amount: 1500,
    });
    const invented = stripeInvoicePaidEvent({ eventId: "evt_Invented00EU01", amount: 99_999_999 });
    const console_: SourceOrigin = { kind: "console" };
    const file: SourceOrigin = { kind: "file", path: "sources.json", index: 0, secretsEnv: "STRIPE_EU_WEBHOOK_SECRET" };

    /** The legacy `stripe` source (STRIPE_API_KEY set) beside `stripe-eu`, configured with `options`. */
    async function withStripeEu(options: unknown, origin: SourceOrigin, env: Record<string, string> = {}) {
      api = await startFakeApi(stripeRoute([real], env.STRIPE_EU_API_KEY ?? STRIPE_KEY));
      const eu = testSource("stripe-eu", "stripe", ["whsec_eu_signing_secret_0123456789"], {
        origin,
        options: PROVIDERS.stripe.parseOptions!(options),
      });
      return {
        ...depsFor(db, {
          sources: testSources({ stripe: [TEST_SECRETS.stripe] }, [eu]),
          replayTokens: { "*": [GLOBAL], "stripe-eu": [EU_TOKEN] },
        }),
        confirmReplay: confirmFromProviders(apiConfig({ stripe: api.url }), { attempts: 1 }, (name) => env[name]),
      };
    }
    const stored = async () =>
      query<{ source: string; event_id: string; via: string; amount: string }>(
        db,
        sql`select source, event_id, via, coalesce(payload, raw_body::jsonb)->'data'->'object'->>'amount_paid' as amount
            from webhook_event order by source, event_id`,
      );

    it("[receiver] REPLAY_TOKEN cannot invent an event for a console Stripe source without a key of its own, even with STRIPE_API_KEY set", async () => {
      const deps = await withStripeEu({}, console_);
      const eu = await post(deps, "stripe-eu", unsigned(invented), { "x-replay-token": GLOBAL });
      expect(eu.status).toBe(403);
      expect(eu.body.error).toMatch(/stripe-eu.*replayApiKeyEnv/);
      expect(api!.requests).toEqual([]);
      // The same post to the source STRIPE_WEBHOOK_SECRET declares is checked with Stripe, as before.
      expect((await post(deps, "stripe", unsigned(invented), { "x-replay-token": GLOBAL })).status).toBe(422);
      expect(api!.requests.map((r) => r.path)).toEqual(["/v1/events/evt_Invented00EU01"]);
      expect(await counts(db)).toEqual({ events: 0, deliveries: 0 });
    });

    it.each([
      ["console", console_],
      ["SOURCES_FILE", file],
    ])(
      "[receiver] a %s Stripe source that names its own key variable has replays confirmed with that key: invented → 422, real → Stripe's copy",
      async (_, origin) => {
        const deps = await withStripeEu({ replayApiKeyEnv: "STRIPE_EU_API_KEY" }, origin, {
          STRIPE_EU_API_KEY: EU_KEY,
        });
        const res = await post(deps, "stripe-eu", unsigned(invented), { "x-replay-token": GLOBAL });
        expect(res).toMatchObject({ status: 422 });
        const forged = structuredClone(real);
        (forged.data.object as { amount_paid: number }).amount_paid = 99_999_999;
        expect((await post(deps, "stripe-eu", unsigned(forged), { "x-replay-token": EU_TOKEN })).status).toBe(200);
        expect(await stored()).toEqual([
          { source: "stripe-eu", event_id: "evt_RealInEurope01", via: "replay", amount: "1500" },
        ]);
        expect(api!.requests.map((r) => [r.path, r.headers.authorization])).toEqual([
          ["/v1/events/evt_Invented00EU01", `Bearer ${EU_KEY}`],
          ["/v1/events/evt_RealInEurope01", `Bearer ${EU_KEY}`],
        ]);
      },
    );

    it("[receiver] a named key variable that is unset refuses the token and says which variable", async () => {
      const deps = await withStripeEu({ replayApiKeyEnv: "STRIPE_EU_API_KEY" }, console_);
      const res = await post(deps, "stripe-eu", unsigned(real), { "x-replay-token": EU_TOKEN });
      expect(res.status).toBe(403);
      expect(res.body.error).toMatch(/STRIPE_EU_API_KEY is not set/);
      expect(await counts(db)).toEqual({ events: 0, deliveries: 0 });
    });

    it("[receiver] without a key, only the source's own token with allowUnconfirmedReplay may replay unconfirmed; REPLAY_TOKEN still may not", async () => {
      const deps = await withStripeEu({ allowUnconfirmedReplay: true }, console_);
      expect((await post(deps, "stripe-eu", unsigned(invented), { "x-replay-token": GLOBAL })).status).toBe(403);
      expect((await post(deps, "stripe-eu", unsigned(invented), { "x-replay-token": EU_TOKEN })).status).toBe(200);
      expect(await stored()).toEqual([
        { source: "stripe-eu", event_id: "evt_Invented00EU01", via: "replay", amount: "99999999" },
      ]);
      expect(api!.requests).toEqual([]);
    });

    it("[receiver] the legacy stripe source without STRIPE_API_KEY refuses replay tokens, its own included", async () => {
      const deps = {
        ...depsFor(db, { replayTokens: { "*": [GLOBAL], stripe: [TOKEN] } }),
        confirmReplay: confirmFromProviders({
          ...apiConfig({}),
          stripe: { base: "http://127.0.0.1:9", key: undefined },
        }),
      };
      for (const token of [GLOBAL, TOKEN]) {
        const res = await post(deps, "stripe", unsigned(real), { "x-replay-token": token });
        expect(res.status).toBe(403);
        expect(res.body.error).toMatch(/STRIPE_API_KEY is not set/);
      }
      expect(await counts(db)).toEqual({ events: 0, deliveries: 0 });
    });

    it("[sources] a Stripe source's replay options are checked: the key variable must be a STRIPE_…KEY name", () => {
      const parse = PROVIDERS.stripe.parseOptions!;
      expect(parse({})).toEqual({});
      expect(parse({ replayApiKeyEnv: "STRIPE_EU_API_KEY", allowUnconfirmedReplay: false })).toEqual({
        replayApiKeyEnv: "STRIPE_EU_API_KEY",
        allowUnconfirmedReplay: false,
      });
      for (const name of ["DATABASE_URL", "LEDGER_SECRET_KEY", "STRIPE_WEBHOOK_SECRET", "stripe_eu_api_key"])
        expect(() => parse({ replayApiKeyEnv: name })).toThrow(/replayApiKeyEnv|STRIPE_/);
      expect(() => parse({ apiKey: "sk_live_x" })).toThrow(/apiKey/);
    });
  });
});
