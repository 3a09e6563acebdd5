import { syncDeclaredDestinations } from "@/lib/forward/destinations";
import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { afterEach } from "vitest";
import { rowsOf, type Db } from "@/db/client";
import type { Actor } from "@/lib/roles";
import { createForwarder } from "@/lib/forward/forwarder";
import type { ForwardContext } from "@/lib/forward/manage";
import { staticSourceDirectory } from "@/lib/sources/directory";
import { createSecretBox } from "@/lib/sources/secret-box";
import { startDestination, type Answer } from "./destination-server";

export const admin: Actor = { id: "u-admin", email: "admin@example.com", role: "admin" };
export const ops: Actor = { id: "u-ops", email: "ops@example.com", role: "ops" };
export const support: Actor = { id: "u-support", email: "support@example.com", role: "support" };
export const box = createSecretBox(randomBytes(32));
/** A declared destination's secret, as its variable holds it. */
export const FILE_SECRET = `whsec_${randomBytes(32).toString("base64")}`;

export function context(db: Db, actor: Actor | undefined = admin, over: Partial<ForwardContext> = {}): ForwardContext {
  return {
    db,
    actor,
    box,
    envVar: (name) => (name === "FILE_DEST_SECRET" ? FILE_SECRET : undefined),
    allowPrivate: true,
    ...over,
  };
}

export const auditRows = async (db: Db) =>
  rowsOf<{
    action: string;
    target: string;
    result: string;
    actor_email: string;
    detail: Record<string, unknown>;
    error: string | null;
  }>(await db.execute(sql`select action, target, result, actor_email, detail, error from audit_log order by id`));

/** Loopback destinations started by a test, closed after it. */
export function destinations() {
  const stops: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const stop of stops.splice(0).reverse()) await stop();
  });
  return async (answer?: (n: number) => Answer) => {
    const d = await startDestination(answer ? (n) => answer(n) : undefined);
    stops.push(d.close);
    return d;
  };
}

/** The forwarder loop on this database (console secrets opened with `box`), stopped after the test. */
export function forwarders(db: Db) {
  const stops: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const stop of stops.splice(0).reverse()) await stop();
  });
  return () => {
    const f = createForwarder({
      getDb: () => Promise.resolve(db),
      sources: staticSourceDirectory([]),
      envVar: () => undefined,
      box,
      allowPrivate: true,
      pollMs: 20,
    });
    f.start();
    let stopped = false;
    const stop = async () => {
      if (stopped) return;
      stopped = true;
      await f.stop();
    };
    stops.push(stop);
    return { forwarder: f, stop };
  };
}

/** A declared destination on a port nothing listens on (127.0.0.1:9), in `state`: for tests that only need one. */
export async function declareBilling(db: Db, state: "active" | "paused"): Promise<void> {
  await syncDeclaredDestinations(db, [
    {
      name: "billing",
      url: "http://127.0.0.1:9/hooks",
      secretEnv: "UNUSED",
      mode: "every",
      format: "standard",
      maxInFlight: 10,
      timeoutMs: 1000,
      maxAttempts: 10,
      state,
    },
  ]);
}
