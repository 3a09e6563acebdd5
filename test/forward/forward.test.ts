import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import Stripe from "stripe";
import { afterEach, describe, expect, it } from "vitest";
import { syncDeclaredDestinations, type DeclaredDestination } from "@/lib/forward/destinations";
import { createForwarder, type Forwarder } from "@/lib/forward/forwarder";
import { staticSourceDirectory } from "@/lib/sources/directory";
import { stripeInvoicePaidEvent, stripeSubscriptionEvent } from "@/test/fixtures/stripe";
import { setupTestDb } from "../db";
import { claim, drain, query, waitFor } from "../worker/helpers";
import { startDestination, type Answer } from "./destination-server";

const { db } = setupTestDb();

const SECRET = `whsec_${randomBytes(32).toString("base64")}`;
const STRIPE_SECRET = "whsec_forward_test_stripe_secret";
const env: Record<string, string> = { DEST_SECRET: SECRET };
const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

async function destination(answer?: (n: number) => Answer) {
  const d = await startDestination(answer ? (n) => answer(n) : undefined);
  stops.push(d.close);
  return d;
}

async function declare(over: Partial<DeclaredDestination> & { url: string }) {
  await syncDeclaredDestinations(db, [
    {
      name: "billing",
      secretEnv: "DEST_SECRET",
      mode: "every",
      format: "standard",
      maxInFlight: 10,
      timeoutMs: 2000,
      maxAttempts: 10,
      state: "active",
      ...over,
    },
  ]);
}

function forwarder(): Forwarder {
  const f = createForwarder({
    getDb: () => Promise.resolve(db),
    sources: staticSourceDirectory([
      {
        slug: "stripe",
        provider: "stripe",
        name: "Stripe",
        state: "active",
        options: {},
        secrets: [{ value: STRIPE_SECRET, fingerprint: "fp_test" }],
        origin: { kind: "env", variable: "STRIPE_WEBHOOK_SECRET" },
      },
    ]),
    envVar: (name) => env[name],
    allowPrivate: true,
    pollMs: 20,
  });
  f.start();
  stops.push(() => f.stop());
  return f;
}

const forwards = () =>
  query<{ event_id: string; status: string; attempts: number; last_error: string | null; next_attempt_at: Date }>(
    db,
    sql`select event_id, status, attempts, last_error, next_attempt_at from forward order by id`,
  );

describe("forwarding, standard format", () => {
  it("sends each settled event once, signed per Standard Webhooks, in the documented envelope", async () => {
    const dest = await destination();
    await declare({ url: dest.url });
    const event = stripeInvoicePaidEvent({ eventId: "evt_fwd_1" });
    await claim(db, "stripe", event);
    await drain(db);
    forwarder();
    await waitFor(async () => (await forwards()).some((f) => f.status === "sent"));
    expect(dest.received).toHaveLength(1);
    const r = dest.received[0]!;
    // The team's side verifies with the standardwebhooks library: a wrong signature would throw here.
    const verified = new Webhook(SECRET).verify(r.body, r.headers as Record<string, string>) as Record<string, unknown>;
    expect(verified).toMatchObject({ id: "evt_fwd_1", source: "stripe", type: "invoice.paid" });
    expect(verified.payload).toEqual(event);
    expect(typeof verified.receivedAt).toBe("string");
    expect(r.headers["webhook-id"]).toMatch(/^fwd_[0-9a-f]{32}$/);
    const attempts = await query<{ status_code: number; number: number }>(
      db,
      sql`select status_code, number from forward_attempt`,
    );
    expect(attempts).toEqual([{ status_code: 200, number: 1 }]);
  });

  it("filters by source and type glob: a non-matching event is not forwarded", async () => {
    const dest = await destination();
    await declare({ url: dest.url, types: ["customer.subscription.*"] });
    await claim(db, "stripe", stripeInvoicePaidEvent({ eventId: "evt_fwd_invoice" }));
    await claim(db, "stripe", stripeSubscriptionEvent({ eventId: "evt_fwd_sub" }));
    await drain(db);
    forwarder();
    await waitFor(async () => (await forwards()).some((f) => f.status === "sent"));
    expect((await forwards()).map((f) => f.event_id)).toEqual(["evt_fwd_sub"]);
  });

  it("retries a 500 with the same webhook-id until a 200, each attempt a row", async () => {
    const dest = await destination((n) => (n === 1 ? { status: 500, body: "boom" } : { status: 200 }));
    await declare({ url: dest.url });
    await claim(db, "stripe", stripeInvoicePaidEvent({ eventId: "evt_fwd_retry" }));
    await drain(db);
    await db.execute(sql`select 1`);
    forwarder();
    await waitFor(async () => (await forwards())[0]?.status === "failed");
    // The backoff's first wait is about a second: bring it forward rather than wait it out.
    await db.execute(sql`update forward set next_attempt_at = now()`);
    await waitFor(async () => (await forwards())[0]?.status === "sent");
    expect(dest.received).toHaveLength(2);
    expect(dest.received[0]!.headers["webhook-id"]).toBe(dest.received[1]!.headers["webhook-id"]);
    const attempts = await query<{ status_code: number; response_excerpt: string }>(
      db,
      sql`select status_code, response_excerpt from forward_attempt order by number`,
    );
    expect(attempts).toEqual([
      { status_code: 500, response_excerpt: "boom" },
      { status_code: 200, response_excerpt: "ok" },
    ]);
  });

  it("honours Retry-After on a 429", async () => {
    const dest = await destination(() => ({ status: 429, headers: { "retry-after": "120" } }));
    await declare({ url: dest.url });
    await claim(db, "stripe", stripeInvoicePaidEvent({ eventId: "evt_fwd_429" }));
    await drain(db);
    forwarder();
    await waitFor(async () => (await forwards())[0]?.status === "failed");
    const [row] = await query<{ wait_s: number }>(
      db,
      sql`select extract(epoch from next_attempt_at - now())::int as wait_s from forward`,
    );
    expect(row!.wait_s).toBeGreaterThan(100);
    expect(row!.wait_s).toBeLessThanOrEqual(120);
  });

  it.each([
    ["answers past the timeout", { status: 200, delayMs: 1500 } as Answer, /no answer within 500 ms/],
    ["resets the connection", { reset: true } as Answer, /socket hang up|ECONNRESET/],
    [
      "redirects",
      { status: 302, headers: { location: "http://127.0.0.1:1/" } } as Answer,
      /redirects are not followed/,
    ],
  ])("a destination that %s: the attempt fails with that said, and it is retried later", async (_, answer, said) => {
    const dest = await destination(() => answer);
    await declare({ url: dest.url, timeoutMs: 500 });
    await claim(db, "stripe", stripeInvoicePaidEvent({ eventId: "evt_fwd_bad" }));
    await drain(db);
    forwarder();
    await waitFor(async () => (await forwards())[0]?.status === "failed");
    const [f] = await forwards();
    expect(f!.last_error).toMatch(said);
    expect(f!.attempts).toBe(1);
  });

  it("a paused destination holds its forwards and sends them on resume", async () => {
    const dest = await destination();
    await declare({ url: dest.url, state: "paused" });
    await claim(db, "stripe", stripeInvoicePaidEvent({ eventId: "evt_fwd_paused" }));
    await drain(db);
    const f = forwarder();
    await waitFor(async () => (await forwards()).length === 1);
    await new Promise((r) => setTimeout(r, 200)); // several rounds of the forwarder: nothing may be sent
    expect(dest.received).toHaveLength(0);
    await db.execute(sql`update forward_destination set state = 'active'`);
    f.wake();
    await waitFor(async () => (await forwards())[0]?.status === "sent");
    expect(dest.received).toHaveLength(1);
  });

  it("opens the breaker after failures in a row, then probes with one request", async () => {
    const dest = await destination(() => ({ status: 503 }));
    await declare({ url: dest.url, maxInFlight: 20 });
    for (let i = 0; i < 12; i++) await claim(db, "stripe", stripeInvoicePaidEvent({ eventId: `evt_fwd_br_${i}` }));
    await drain(db);
    forwarder();
    // Open, and every request of that first burst answered (the breaker opens at the tenth failure, with the
    // others still on their way).
    await waitFor(async () => {
      const [d] = await query<{ open: boolean; sending: number }>(
        db,
        sql`select breaker_until > now() as open, (select count(*)::int from forward where status = 'sending') as sending
            from forward_destination`,
      );
      return d!.open === true && d!.sending === 0;
    });
    const sentBefore = dest.received.length;
    // Everything is due again, but the breaker is open: nothing goes out.
    await db.execute(sql`update forward set next_attempt_at = now() where status = 'failed'`);
    await new Promise((r) => setTimeout(r, 200));
    expect(dest.received.length).toBe(sentBefore);
    // Its time passes: one probe, which fails and opens it again for longer.
    await db.execute(sql`update forward_destination set breaker_until = now() - interval '1 second'`);
    // The forwarder's idle poll finds the closed breaker; on a loaded machine that can take longer than 10 s.
    await waitFor(async () => dest.received.length === sentBefore + 1, 30_000);
    // Its result is written by the forwarder's next round: the breaker opens again, and no second probe went out.
    await waitFor(async () => {
      const [d] = await query<{ openings: number }>(
        db,
        sql`select breaker_openings as openings from forward_destination`,
      );
      return d!.openings === 2;
    }, 30_000);
    await new Promise((r) => setTimeout(r, 200));
    expect(dest.received.length).toBe(sentBefore + 1);
  });

  it("refuses loopback unless allowed, and link-local always", async () => {
    const { sendForward } = await import("@/lib/forward/send");
    const dest = await destination();
    const base = { headers: {}, body: "{}", timeoutMs: 1000 };
    expect((await sendForward({ ...base, url: dest.url, allowPrivate: false })).error).toMatch(/loopback or private/);
    const byName = dest.url.replace("127.0.0.1", "localhost");
    expect((await sendForward({ ...base, url: byName, allowPrivate: false })).error).toMatch(/loopback or private/);
    expect((await sendForward({ ...base, url: "http://169.254.169.254/latest", allowPrivate: true })).error).toMatch(
      /link-local/,
    );
    expect((await sendForward({ ...base, url: "http://[::ffff:169.254.169.254]/", allowPrivate: true })).error).toMatch(
      /link-local/,
    );
    expect(dest.received).toHaveLength(0);
    expect((await sendForward({ ...base, url: dest.url, allowPrivate: true })).ok).toBe(true);
  });
});

describe("forwarding, provider format", () => {
  it("sends Stripe's exact body re-signed with the source's secret: stripe's own SDK verifies it", async () => {
    const dest = await destination();
    await declare({ url: dest.url, format: "provider" });
    const event = stripeInvoicePaidEvent({ eventId: "evt_fwd_provider" });
    await claim(db, "stripe", event);
    await drain(db);
    forwarder();
    await waitFor(async () => (await forwards())[0]?.status === "sent");
    const r = dest.received[0]!;
    expect(r.body).toBe(JSON.stringify(event));
    const stripe = new Stripe("sk_test_unused");
    const verified = stripe.webhooks.constructEvent(r.body, String(r.headers["stripe-signature"]), STRIPE_SECRET);
    expect(verified.id).toBe("evt_fwd_provider");
    expect(r.headers["x-ledger-forward-id"]).toMatch(/^fwd_/);
  });
});

describe("forwarding, newest mode", () => {
  it("100 subscriptions' shuffled versions: each entity's versions arrive strictly increasing, ending at the newest", async () => {
    const dest = await destination((n) => ({ status: 200, delayMs: n % 7 }));
    await declare({ url: dest.url, mode: "newest", maxInFlight: 20 });
    const events = [];
    for (let s = 0; s < 100; s++)
      for (let v = 1; v <= 4; v++)
        events.push(
          stripeSubscriptionEvent({
            eventId: `evt_n_${s}_${v}`,
            subscriptionId: `sub_N${String(s).padStart(4, "0")}`,
            created: 1_700_000_000 + v * 60,
          }),
        );
    // A seeded shuffle: deterministic, so a failure reproduces.
    let seed = 42;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let i = events.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [events[i], events[j]] = [events[j]!, events[i]!];
    }
    forwarder();
    // Delivered in several rounds with the forwarder running: states arrive while older ones are in flight.
    for (let i = 0; i < events.length; i += 50) {
      for (const e of events.slice(i, i + 50)) await claim(db, "stripe", e);
      await drain(db);
    }
    await waitFor(
      async () =>
        (
          await query<{ n: number }>(
            db,
            sql`select count(*)::int as n from forward where status in ('pending','sending','failed')`,
          )
        )[0]!.n === 0,
      30_000,
    );
    // As a team's endpoint does: a webhook-id seen before is a repeat (a lease that expired under load sends the
    // same forward again, with the same id and body) and is dropped; what is left must be in order.
    const seen = new Map<string, number[]>();
    const bodies = new Map<string, string>();
    for (const r of dest.received) {
      const id = String(r.headers["webhook-id"]);
      if (bodies.has(id)) {
        expect(r.body).toBe(bodies.get(id));
        continue;
      }
      bodies.set(id, r.body);
      const body = JSON.parse(r.body) as { entity: { id: string; version: number } };
      seen.set(body.entity.id, [...(seen.get(body.entity.id) ?? []), body.entity.version]);
    }
    expect(seen.size).toBe(100);
    for (const [, versions] of seen) {
      for (let i = 1; i < versions.length; i++) expect(versions[i]!).toBeGreaterThan(versions[i - 1]!);
      expect(versions.at(-1)).toBe(Math.max(...versions));
    }
    const newest = Math.max(...[...seen.values()].flat());
    for (const [, versions] of seen) expect(versions.at(-1)).toBe(newest);
    const stale = await query<{ n: number }>(db, sql`select count(*)::int as n from forward where status = 'stale'`);
    expect(stale[0]!.n).toBeGreaterThan(0);
  });
});
