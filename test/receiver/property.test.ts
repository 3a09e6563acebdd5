import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LegacyKind } from "@/lib/sources/declared";
import { setupTestDb } from "../db";
import {
  signGithub,
  signPaddle,
  signShopify,
  signSlack,
  signStandard,
  signStripe,
  TEST_SECRETS,
  type Delivery,
} from "../sign";
import { query } from "../worker/helpers";
import { depsFor } from "./harness";
import { startReceiverServer } from "./http-server";

const { db } = setupTestDb();
let server: Awaited<ReturnType<typeof startReceiverServer>>;
beforeAll(async () => {
  server = await startReceiverServer(depsFor(db));
});
afterAll(async () => {
  await server.close();
});

/** JSON text for a value, where `raw` marks text spliced in as written (numbers no double holds exactly). */
type Piece = { raw: string };
const raw = (text: string): Piece => ({ raw: text });
function render(v: unknown): string {
  if (v !== null && typeof v === "object" && "raw" in v && typeof (v as Piece).raw === "string")
    return (v as Piece).raw;
  if (Array.isArray(v)) return `[${v.map(render).join(",")}]`;
  if (v !== null && typeof v === "object")
    return `{${Object.entries(v)
      .map(([k, x]) => `${JSON.stringify(k)}:${render(x)}`)
      .join(",")}}`;
  return JSON.stringify(v) ?? "null";
}

// The odd shapes real and hostile senders produce, in every field.
const oddNumber = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(
    raw("12345678901234567890123"),
    raw("-9007199254740993"),
    raw("1e308"),
    raw("1e400"),
    raw("-0"),
    raw("1e-400"),
    raw(`1${"0".repeat(400)}`),
  ),
);
const oddDate = fc.oneof(
  fc
    .date({ min: new Date("0001-01-01T00:00:00Z"), max: new Date("9999-12-31T23:59:59Z"), noInvalidDate: true })
    .map((d) => d.toISOString()),
  fc.constantFrom(
    "2300-01-01T00:00:00Z",
    "2026-02-30T10:00:00Z",
    "yesterday",
    "",
    "2026-11-01T10:00:00.123456789+14:00",
    "0000-00-00T00:00:00Z",
    "1969-12-31T23:59:59Z",
  ),
);
const oddString = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: "grapheme", maxLength: 20 }),
  fc.string({ unit: "binary", maxLength: 20 }), // lone surrogates included
  fc.constantFrom(
    "\u0000",
    "a\u0000b",
    "\ud800",
    "\udfff",
    "\u202e",
    "🧾",
    "x".repeat(5000),
    "cus_NffrFeUfNV2Hib",
    "someone@example.com",
  ),
);
const scalar = fc.oneof(oddNumber, oddDate, oddString, fc.boolean(), fc.constant(null));
const nested: fc.Arbitrary<unknown> = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    scalar,
    fc.array(tie("v"), { maxLength: 4 }),
    fc.dictionary(fc.string({ maxLength: 8 }), tie("v"), { maxKeys: 4 }),
  ),
})).v;
const deep = fc.integer({ min: 1, max: 3000 }).map((n) => raw(`${"[".repeat(n)}${"]".repeat(n)}`));
const anything = fc.oneof(
  { weight: 4, arbitrary: scalar },
  { weight: 3, arbitrary: nested },
  { weight: 1, arbitrary: deep },
);
const id = fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: anything }); // undefined → a fresh valid id

type Build = (g: { id: unknown; a: unknown; b: unknown; c: unknown; fresh: string }) => Promise<Delivery>;
const choose = (v: unknown, fallback: unknown) => (v === undefined ? fallback : v);

const BUILD: Record<LegacyKind, Build> = {
  stripe: async ({ id, a, b, c, fresh }) =>
    signStripe(
      render({
        id: choose(id, fresh),
        object: "event",
        type: choose(c, "customer.subscription.updated"),
        created: a,
        data: { object: { id: "sub_1", object: "subscription", customer: b, items: { data: [{ price: { id: c } }] } } },
      }),
      TEST_SECRETS.stripe,
    ),
  github: async ({ id, a, b, fresh }) =>
    signGithub(
      render({
        action: "opened",
        issue: { id: a, title: b },
        repository: { id: a, full_name: "octo-org/octo-repo" },
        sender: { login: b },
      }),
      TEST_SECRETS.github,
      { delivery: typeof id === "string" && /^[\x21-\x7e]{1,300}$/.test(id) ? id : fresh },
    ),
  shopify: async ({ id, a, b, c, fresh }) =>
    signShopify(
      render({
        id: choose(id, raw("820982911946154508")),
        updated_at: a,
        customer: { id: raw("207119551"), email: b },
        total_price: c,
      }),
      TEST_SECRETS.shopify,
      { webhookId: fresh, eventId: fresh },
    ),
  paddle: async ({ id, a, b, c, fresh }) =>
    signPaddle(
      render({
        event_id: choose(id, fresh),
        event_type: "subscription.updated",
        occurred_at: a,
        data: { id: "sub_01h8", customer_id: b, status: c },
      }),
      TEST_SECRETS.paddle,
    ),
  slack: async ({ id, a, b, fresh }) =>
    signSlack(
      render({
        type: "event_callback",
        team_id: "T1",
        event_id: choose(id, fresh),
        event_time: a,
        event: { type: "message", channel: b, text: a },
      }),
      TEST_SECRETS.slack,
    ),
  standard: async ({ a, b, c, fresh }) =>
    signStandard(render({ type: c, timestamp: a, data: { id: b, note: a } }), TEST_SECRETS.standard, { id: fresh }),
};

describe("the receiver under generated payloads", () => {
  for (const source of Object.keys(BUILD) as LegacyKind[]) {
    // Any: huge or negative numbers, far-future and malformed dates, deep nesting, long strings, odd unicode,
    // ids past 2^53.
    it(`[receiver] ${source}: any signed payload answers 200 or 4xx, and a 4xx writes nothing`, async () => {
      await fc.assert(
        fc.asyncProperty(id, anything, anything, anything, async (eventId, a, b, c) => {
          const fresh = `${source}_${randomUUID()}`;
          const before = await query<{ n: number }>(db, sql`select count(*)::int as n from webhook_delivery`);
          const d = await BUILD[source]({ id: eventId, a, b, c, fresh });
          const res = await fetch(`${server.url}/api/webhooks/${source}`, {
            method: "POST",
            headers: d.headers,
            body: d.body,
          });
          const text = await res.text();
          const after = await query<{ n: number }>(db, sql`select count(*)::int as n from webhook_delivery`);
          expect(res.status === 200 || (res.status >= 400 && res.status < 500), `${res.status} ${text}`).toBe(true);
          const handshake = res.status === 200 && (JSON.parse(text) as { challenge?: unknown }).challenge !== undefined;
          if (res.status === 200)
            expect(after[0]!.n, "a 200 is a committed delivery").toBe(before[0]!.n + (handshake ? 0 : 1));
          else expect(after[0]!.n, `a ${res.status} wrote a delivery`).toBe(before[0]!.n);
        }),
        { numRuns: 150 },
      );
    });
  }
});
