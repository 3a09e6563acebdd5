import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { afterAll, describe, expect, it } from "vitest";
import { workerNodeArgs } from "@/bench/worker-procs";
import { stripeInvoicePaidEvent } from "@/test/fixtures/stripe";
import { setupTestDb, testDatabaseUrl } from "../db";
import { startDestination } from "../forward/destination-server";
import { claim, query, waitFor } from "../worker/helpers";

const { db } = setupTestDb();
const children = new Set<ChildProcess>();
afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
});

const SECRET = `whsec_${randomBytes(32).toString("base64")}`;

/** `npm run worker` (which runs the forwarder beside the worker's loops) as a real child process. */
function startWorker(destinationsFile: string): ChildProcess {
  const child = spawn(process.execPath, workerNodeArgs(), {
    env: {
      ...process.env,
      DATABASE_URL: testDatabaseUrl(),
      DESTINATIONS_FILE: destinationsFile,
      FORWARD_DEST_SECRET: SECRET,
      FORWARD_ALLOW_PRIVATE: "true",
      LOG_LEVEL: "warn",
    },
    stdio: ["ignore", "ignore", "pipe"],
  });
  children.add(child);
  return child;
}

describe("forwarding survives a crash", () => {
  it("[crash] a forwarder SIGKILLed mid-request: the forward is sent again with the same webhook-id, nothing lost", async () => {
    // The first request is held open (the process dies while it waits); later ones are answered.
    const dest = await startDestination((n) => (n === 1 ? { hang: true } : { status: 200 }));
    const dir = mkdtempSync(path.join(tmpdir(), "ledger-forward-"));
    const file = path.join(dir, "destinations.json");
    writeFileSync(
      file,
      JSON.stringify([{ name: "billing", url: dest.url, secretEnv: "FORWARD_DEST_SECRET", timeoutMs: 1000 }]),
    );
    try {
      await claim(db, "stripe", stripeInvoicePaidEvent({ eventId: "evt_kill_fwd" }));
      const first = startWorker(file);
      await waitFor(async () => dest.received.length === 1, 120_000);
      first.kill("SIGKILL");
      await new Promise((r) => first.once("exit", r));
      const [held] = await query<{ status: string }>(db, sql`select status from forward`);
      expect(held!.status).toBe("sending");
      // Another process takes the forward once the dead one's lease runs out.
      startWorker(file);
      await waitFor(
        async () => (await query<{ status: string }>(db, sql`select status from forward`))[0]?.status === "sent",
        120_000, // hang guards: a worker process can take most of a minute to start beside the other tiers
      );
      expect(dest.received).toHaveLength(2);
      const [a, b] = dest.received;
      expect(b!.headers["webhook-id"]).toBe(a!.headers["webhook-id"]);
      // Both are real, verifiable deliveries of the same event.
      for (const r of [a!, b!])
        expect(new Webhook(SECRET).verify(r.body, r.headers as Record<string, string>)).toMatchObject({
          id: "evt_kill_fwd",
        });
      const [row] = await query<{ attempts: number }>(db, sql`select attempts from forward`);
      expect(row!.attempts).toBe(2);
    } finally {
      await dest.close();
    }
  });
});
