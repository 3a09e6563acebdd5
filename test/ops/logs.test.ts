import { execFile, spawn } from "node:child_process";
import { setTimeout as sleep } from "node:timers/promises";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseEnv } from "@/lib/env";
import { logSettingsFromEnv } from "@/lib/log";
import { createLedgerMetrics } from "@/lib/metrics";
import { createWorker } from "@/lib/worker/run";
import { githubIssuesOpened } from "../fixtures/github";
import { shopifyOrder } from "../fixtures/shopify";
import { stripeSubscriptionEvent } from "../fixtures/stripe";
import { setupTestDb } from "../db";
import { signGithub, signShopify, signStripe, TEST_SECRETS, type Delivery } from "../sign";
import { claim, testSettings } from "../worker/helpers";
import { captureLogger, parseExposition, startOpsServer, valueOf, type LogRecord } from "./helpers";

// The logs a delivery leaves: one JSON line each, with what ops need and nothing a log must never hold.
const { db } = setupTestDb();
const MARKER = "PAYLOAD-BYTES-MUST-NOT-BE-LOGGED-7f3a";
const COOKIE = "session=COOKIE-VALUE-MUST-NOT-BE-LOGGED";
const AUTHORIZATION = "Bearer AUTH-VALUE-MUST-NOT-BE-LOGGED";
const REPLAY_TOKEN = "REPLAY-TOKEN-MUST-NOT-BE-LOGGED-0123456789abcdef";
let server: Awaited<ReturnType<typeof startOpsServer>>;
beforeAll(async () => {
  server = await startOpsServer(db, { metricsToken: undefined });
});
afterAll(() => server.close());

const withMarker = (payload: object) => JSON.stringify({ ...payload, note: MARKER });
const post = (slug: string, d: Delivery, extra: Record<string, string> = {}) =>
  fetch(`${server.url}/api/webhooks/${slug}`, { method: "POST", headers: { ...d.headers, ...extra }, body: d.body });
const deliveryLines = (records: LogRecord[]) => records.filter((r) => r.msg === "[webhooks] delivery answered");

describe("structured logs", () => {
  it("[ops] one JSON line per delivery answered: source, event id, outcome, status, ms and the request id echoed to the sender", async () => {
    const from = server.lines.length;
    const stripe = signStripe(withMarker(stripeSubscriptionEvent({ eventId: "evt_log_1" })), TEST_SECRETS.stripe);
    const answers = [
      await post("stripe", stripe, { "x-request-id": "lb-4f1c.2:abc" }),
      await post("stripe", stripe, { "x-request-id": "x".repeat(300) }),
      await post("stripe", signStripe(withMarker({ id: "evt_log_bad" }), "whsec_wrong")),
      await post("no-such-source", stripe),
    ];
    const ids = answers.map((a) => a.headers.get("x-request-id"));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 401, 404]);
    expect(ids[0]).toBe("lb-4f1c.2:abc"); // a sane id from the proxy is kept
    expect(ids[1]).toMatch(/^[0-9a-f-]{36}$/); // an insane one is replaced
    expect(new Set(ids).size).toBe(4);

    const lines = server.lines.slice(from);
    const records = lines.map((l) => JSON.parse(l) as LogRecord);
    const deliveries = deliveryLines(records);
    expect(deliveries).toHaveLength(4);
    expect(deliveries.map((r) => r.requestId)).toEqual(ids);
    expect(
      deliveries.map(({ source, eventId, outcome, status, level }) => ({ source, eventId, outcome, status, level })),
    ).toEqual([
      { source: "stripe", eventId: "evt_log_1", outcome: "claimed", status: 200, level: "info" },
      { source: "stripe", eventId: undefined, outcome: "duplicate", status: 200, level: "info" },
      { source: "stripe", eventId: undefined, outcome: "refused_bad_signature", status: 401, level: "info" },
      { source: "no-such-source", eventId: undefined, outcome: "rejected", status: 404, level: "info" },
    ]);
    for (const r of deliveries) {
      expect(typeof r.ms).toBe("number");
      expect(r.ms as number).toBeGreaterThanOrEqual(0);
      expect(typeof r.time).toBe("string");
    }
    expect(deliveries[0]!.bytes).toBe(Buffer.byteLength(stripe.body));
    expect(typeof deliveries[0]!.claimMs).toBe("number");
  });

  it("[ops] no line holds a secret (signatures, cookies, authorization, the replay token, the webhook secrets) or a byte of a payload", async () => {
    const from = server.lines.length;
    const secrets = {
      cookie: COOKIE,
      authorization: AUTHORIZATION,
      "x-replay-token": REPLAY_TOKEN,
    };
    const github = await signGithub(withMarker(githubIssuesOpened()), TEST_SECRETS.github);
    const shopify = signShopify(withMarker(shopifyOrder()), TEST_SECRETS.shopify);
    const stripe = signStripe(withMarker(stripeSubscriptionEvent({ eventId: "evt_log_secret" })), TEST_SECRETS.stripe);
    const deliveries: [string, Delivery, Record<string, string>][] = [
      ["github", github, { cookie: COOKIE, authorization: AUTHORIZATION }],
      ["shopify", shopify, { cookie: COOKIE }],
      ["stripe", stripe, secrets], // a replay token no source accepts: refused, and still not logged
      ["stripe", signStripe(`{"id": "${MARKER}", "broken`, TEST_SECRETS.stripe), {}],
    ];
    const statuses = [];
    for (const [slug, d, extra] of deliveries) statuses.push((await post(slug, d, extra)).status);
    expect(statuses).toEqual([200, 200, 401, 400]);

    const text = server.lines.slice(from).join("");
    expect(deliveryLines(server.records().slice(-4))).toHaveLength(4);
    const forbidden = [
      MARKER,
      COOKIE,
      "COOKIE-VALUE",
      "AUTH-VALUE",
      REPLAY_TOKEN,
      github.headers["x-hub-signature-256"]!,
      shopify.headers["x-shopify-hmac-sha256"]!,
      stripe.headers["stripe-signature"]!,
      ...Object.values(TEST_SECRETS),
    ];
    for (const value of forbidden) expect(text, value).not.toContain(value);
  });

  it("[ops] headers logged through the logger are censored by name, and errors carry no driver fields", () => {
    const { logger, lines } = captureLogger();
    const err = Object.assign(new Error("insert failed"), { parameters: [MARKER], query: `insert ${MARKER}` });
    logger.warn(
      {
        headers: {
          "x-hub-signature-256": "sha256=abc",
          "Stripe-Signature": "t=1,v1=abc",
          "typeform-signature": "sha256=abc",
          "x-shopify-hmac-sha256": "abc",
          authorization: AUTHORIZATION,
          cookie: COOKIE,
          "x-replay-token": REPLAY_TOKEN,
          "user-agent": "Stripe/1.0",
        },
        err,
      },
      "a line with headers",
    );
    const [line] = lines;
    const record = JSON.parse(line!) as { headers: Record<string, string>; err: Record<string, unknown> };
    expect(record.headers).toEqual({
      "x-hub-signature-256": "[redacted]",
      "stripe-signature": "[redacted]",
      "typeform-signature": "[redacted]",
      "x-shopify-hmac-sha256": "[redacted]",
      authorization: "[redacted]",
      cookie: "[redacted]",
      "x-replay-token": "[redacted]",
      "user-agent": "Stripe/1.0",
    });
    expect(record.err.message).toBe("insert failed");
    expect(line).not.toContain(MARKER);
  });

  it("[ops] the worker logs one line per batch settled (count, outcomes, ms) and counts attempts and processing time", async () => {
    const { logger, records } = captureLogger();
    const metrics = createLedgerMetrics();
    const worker = createWorker({
      getDb: async () => db,
      settings: testSettings({ pollMs: 60_000, batchSize: 10 }),
      logger,
      metrics,
    });
    worker.start();
    try {
      await sleep(100); // the loop found nothing and sleeps until woken
      await claim(db, "stripe", stripeSubscriptionEvent({ eventId: "evt_batch_fast" }));
      worker.wake();
      for (let i = 0; i < 100 && records().filter((r) => r.msg === "batch settled").length < 1; i++) await sleep(20);
      await claim(db, "stripe", stripeSubscriptionEvent({ eventId: "evt_batch_2", subscriptionId: "sub_b2" }));
      await claim(db, "stripe", stripeSubscriptionEvent({ eventId: "evt_batch_3", subscriptionId: "sub_b3" }));
      worker.wake();
      for (let i = 0; i < 100 && records().filter((r) => r.msg === "batch settled").length < 2; i++) await sleep(20);
    } finally {
      await worker.stop();
    }
    const batches = records().filter((r) => r.msg === "batch settled");
    expect(batches.map((b) => b.count)).toEqual([1, 2]);
    for (const b of batches) {
      const outcomes = b.outcomes as Record<string, number>;
      expect(Object.values(outcomes).reduce((a, n) => a + n, 0)).toBe(b.count);
      expect(typeof b.ms).toBe("number");
    }
    expect(batches[0]!.eventId).toBe("evt_batch_fast");
    const m = parseExposition((await metrics.render()).body);
    const attempts = m.filter((s) => s.name === "webhook_attempts_total").reduce((a, s) => a + s.value, 0);
    expect(attempts).toBe(3);
    expect(valueOf(m, "webhook_processing_duration_seconds_count", { path: "batch" })).toBe(2);
  });

  it("[ops] stdout shows a line while the process runs and keeps every line, in order, up to process.exit", async () => {
    // One line, then 1.5 s of quiet, then 300 lines and an exit straight after the last: the first must not wait
    // for the exit, and none of the rest may be lost or reordered with the process (batched asynchronous writes
    // reordered them at exit).
    const script = [
      'const { getLogger } = await import("@/lib/log");',
      "const log = getLogger();",
      'log.info("first");',
      "setTimeout(() => {",
      '  for (let i = 0; i < 300; i++) log.info({ i }, "line");',
      '  log.info("last words");',
      "  process.exit(0);",
      "}, 1500);",
    ].join("\n");
    const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      env: { PATH: process.env.PATH ?? "", NODE_ENV: "production" },
      stdio: ["ignore", "pipe", "inherit"],
    });
    const started = performance.now();
    let stdout = "";
    let firstAfterMs: number | undefined;
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString();
      if (firstAfterMs === undefined && stdout.includes('"msg":"first"')) firstAfterMs = performance.now() - started;
    });
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    const exitedAfterMs = performance.now() - started;
    expect(code).toBe(0);
    // The quiet second and a half is the margin: the line arrived while the process was still waiting, not at exit.
    expect(firstAfterMs).toBeDefined();
    expect(exitedAfterMs - firstAfterMs!).toBeGreaterThan(1000);
    const msgs = stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as LogRecord & { i?: number });
    expect(msgs.map((r) => r.msg)).toEqual(["first", ...Array<string>(300).fill("line"), "last words"]);
    expect(msgs.slice(1, 301).map((r) => r.i)).toEqual(Array.from({ length: 300 }, (_, i) => i));
  });

  it("[ops] the process logger: info to stdout, warnings to stderr, as JSON unless asked for pretty", async () => {
    const script = [
      'const { componentLogger } = await import("@/lib/log");',
      'const log = componentLogger("receiver");',
      'log.info({ url: "http://127.0.0.1:1" }, "listening on http://127.0.0.1:1");',
      'log.debug("not at the default level");',
      'log.warn({ err: new Error("nothing was written") }, "[webhooks] stripe: ledger unavailable");',
    ].join("\n");
    const run = (env: { NODE_ENV: "production" } & Record<string, string>) =>
      promisify(execFile)(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
        env: { PATH: process.env.PATH ?? "", ...env },
      });
    const json = await run({ NODE_ENV: "production" });
    const out = json.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as LogRecord);
    const err = json.stderr
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as LogRecord);
    expect(out.map((r) => [r.level, r.component, r.msg])).toEqual([
      ["info", "receiver", "[receiver] listening on http://127.0.0.1:1"],
    ]);
    expect(err.map((r) => [r.level, r.msg])).toEqual([["warn", "[receiver] [webhooks] stripe: ledger unavailable"]]);
    expect(err[0]!.err).toMatchObject({ message: "nothing was written" });

    const debug = await run({ NODE_ENV: "production", LOG_LEVEL: "debug" });
    expect(debug.stdout).toContain("not at the default level");
    const pretty = await run({ NODE_ENV: "production", LEDGER_TUNING: JSON.stringify({ LOG_FORMAT: "pretty" }) });
    expect(pretty.stdout).toMatch(/INFO.*\[receiver\] listening on/);
    expect(() => JSON.parse(pretty.stdout.split("\n")[0]!) as unknown).toThrow();

    expect(logSettingsFromEnv(parseEnv({ NODE_ENV: "development" }))).toEqual({ level: "info", format: "pretty" });
    expect(logSettingsFromEnv(parseEnv({}))).toEqual({ level: "info", format: "json" });
    expect(logSettingsFromEnv(parseEnv({ NODE_ENV: "test", LOG_LEVEL: "" }))).toEqual({
      level: "warn",
      format: "json",
    });
  });
});
