import { sql } from "drizzle-orm";
import type { Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rowsOf } from "@/db/client";
import { createLifecycle } from "@/lib/lifecycle";
import { createBodyBudget, type BodyBudget } from "@/lib/receiver/body-budget";
import { startLedgerServer } from "@/lib/server/http";
import { stripeSubscriptionEvent } from "../fixtures/stripe";
import { setupTestDb } from "../db";
import { signStripe, TEST_SECRETS } from "../sign";
import { counts, depsFor } from "./harness";
import { bodyOf, chunk, dribble, headerOf, openRaw, postHead, until } from "./raw-http";
import { startRouteHost } from "./route-host";

// Every spelling of one webhook path, sent to each host that can receive it: the bounds are the intake's, not a path's.
const { db } = setupTestDb();
const MAX_BYTES = 64 * 1024;
const BUDGET = 100 * 1024;
const BODY_TIMEOUT_MS = 600;

const SPELLINGS = [
  "/api/webhooks/stripe",
  "/api/webhooks/x/../stripe",
  "/api/webhooks/./stripe",
  "/api/webhooks/%2e%2e/webhooks/stripe",
  "/api/webhooks/x/.%2E/stripe",
  "/api/webhooks//stripe",
  "/api/webhooks/stripe/",
  "/api/webhooks/%73tripe",
  "/api/webhooks/x/../stripe?via=dots",
];

interface Host {
  port: number;
  budget: BodyBudget;
  close: () => Promise<void>;
}

const HOSTS: [string, (bodyTimeoutMs: number) => Promise<Host>][] = [
  [
    "npm start and npm run receiver (node:http)",
    async (bodyTimeoutMs) => {
      const budget = createBodyBudget(BUDGET);
      const lifecycle = createLifecycle({ timeoutMs: 5000 });
      const { url } = await startLedgerServer({
        host: "127.0.0.1",
        port: 0,
        lifecycle,
        log: () => {},
        deps: { ...depsFor(db, { maxBytes: MAX_BYTES }), limits: { bodyTimeoutMs, budget } },
        onWork: () => {},
      });
      return {
        port: Number(new URL(url).port),
        budget,
        close: async () => void (await lifecycle.stop("test over")),
      };
    },
  ],
  [
    "next dev and next start (the route handler)",
    async (bodyTimeoutMs) => {
      const budget = createBodyBudget(BUDGET);
      const host = await startRouteHost({
        ...depsFor(db, { maxBytes: MAX_BYTES }),
        limits: { bodyTimeoutMs, budget },
      });
      return { port: host.port, budget, close: host.close };
    },
  ],
];

describe.each(HOSTS)("%s", (name, start) => {
  let host: Host;
  const clients: Socket[] = [];
  const open = () => openRaw(host.port, clients);
  beforeAll(async () => {
    host = await start(BODY_TIMEOUT_MS);
  });
  afterAll(async () => {
    for (const c of clients) c.destroy();
    await host.close();
  });

  it("[receiver] every spelling of /api/webhooks/stripe reaches the stripe source: a signed delivery is claimed", async () => {
    const tag = name.startsWith("npm") ? "node" : "route";
    for (const [i, path] of SPELLINGS.entries()) {
      const eventId = `evt_spelling_${tag}_${i}`;
      const d = signStripe(JSON.stringify(stripeSubscriptionEvent({ eventId })), TEST_SECRETS.stripe);
      const c = await open();
      c.socket.write(
        postHead(path, [
          `Stripe-Signature: ${d.headers["stripe-signature"]}`,
          "Content-Type: application/json",
          `Content-Length: ${Buffer.byteLength(d.body)}`,
        ]) + d.body,
      );
      await until(() => c.text().endsWith("}"), 10_000);
      expect([path, c.status(), bodyOf(c.text())]).toEqual([path, 200, { received: true, duplicate: false }]);
      c.socket.destroy();
    }
    const rows = rowsOf<{ source: string }>(
      await db.execute(sql`select source from webhook_event where event_id like ${`evt_spelling_${tag}_%`}`),
    );
    expect(rows.map((r) => r.source)).toEqual(SPELLINGS.map(() => "stripe"));
  });

  it("[security] a body dripped a byte at a time answers 408 within WEBHOOK_BODY_TIMEOUT_MS and closes, on every spelling", async () => {
    const results = await Promise.all(
      SPELLINGS.map(async (path) => {
        const c = await open();
        const started = performance.now();
        c.socket.write(postHead(path, ["Stripe-Signature: t=1,v1=00", "Content-Length: 1000"]) + '{"id":"evt_');
        await dribble(c, "a", 150, BODY_TIMEOUT_MS + 3000);
        const closedAfter = c.isClosed() ? (await c.closed) - started : Infinity;
        return {
          path,
          status: c.status(),
          body: c.status() ? bodyOf(c.text()) : undefined,
          connection: headerOf(c.text(), "connection"),
          closedInTime: closedAfter < BODY_TIMEOUT_MS + 1500,
        };
      }),
    );
    expect(results).toEqual(
      SPELLINGS.map((path) => ({
        path,
        status: 408,
        body: { error: `the body did not arrive within ${BODY_TIMEOUT_MS} ms` },
        connection: "close",
        closedInTime: true,
      })),
    );
    expect(await until(() => host.budget.held === 0, 10_000)).toBe(true);
  });

  it("[security] unverified bodies past WEBHOOK_UNVERIFIED_MAX_BYTES answer 503 with Retry-After, on every spelling", async () => {
    // A host whose body timeout cannot fire while a loaded machine sets up the held body and the two refused.
    const patient = await start(120_000);
    const open = () => openRaw(patient.port, clients);
    try {
      const held = Buffer.alloc(50 * 1024, 97);
      for (const path of SPELLINGS) {
        // Declared just under WEBHOOK_MAX_BYTES, 50 KB of it sent, the rest never: half the budget held.
        const holder = await open();
        holder.socket.write(postHead(path, ["Stripe-Signature: t=1,v1=00", `Content-Length: ${MAX_BYTES - 10}`]));
        holder.socket.write(held);
        expect([path, await until(() => patient.budget.held >= held.length, 10_000)]).toEqual([path, true]);
        // One declaring more than is left, one chunked whose bytes pass it as they are read.
        const declared = await open();
        declared.socket.write(postHead(path, ["Stripe-Signature: t=1,v1=00", `Content-Length: ${60 * 1024}`]));
        const chunked = await open();
        chunked.socket.write(postHead(path, ["Stripe-Signature: t=1,v1=00", "Transfer-Encoding: chunked"]));
        chunked.socket.write(Buffer.concat([chunk(Buffer.alloc(40 * 1024, 98)), chunk(Buffer.alloc(40 * 1024, 99))]));
        await until(() => declared.status() !== 0 && chunked.status() !== 0, 10_000);
        for (const c of [declared, chunked]) {
          expect([path, c.status(), headerOf(c.text(), "retry-after"), headerOf(c.text(), "connection")]).toEqual([
            path,
            503,
            "1",
            "close",
          ]);
        }
        expect(patient.budget.peak).toBeLessThanOrEqual(BUDGET);
        holder.socket.destroy();
        expect([path, await until(() => patient.budget.held === 0, 10_000)]).toEqual([path, true]);
      }
    } finally {
      await patient.close();
    }
  });

  it("[security] a source segment that decodes to a path, not a slug, answers 404 and reaches no source", async () => {
    const before = await counts(db);
    for (const path of [
      "/api/webhooks/x%2F..%2Fstripe",
      "/api/webhooks/..%2Fstripe",
      "/api/webhooks/%2e%2e%2fstripe",
    ]) {
      const d = signStripe(JSON.stringify(stripeSubscriptionEvent({ eventId: "evt_not_a_slug" })), TEST_SECRETS.stripe);
      const c = await open();
      c.socket.write(
        postHead(path, [`Stripe-Signature: ${d.headers["stripe-signature"]}`, `Content-Length: ${d.body.length}`]) +
          d.body,
      );
      await until(() => c.status() !== 0 && c.text().includes("\r\n\r\n"), 10_000);
      expect([path, c.status()]).toEqual([path, 404]);
      c.socket.destroy();
    }
    expect(await counts(db)).toEqual(before);
  });
});
