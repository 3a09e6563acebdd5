import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectPglite, rowsOf, type DbHandle } from "@/db/client";
import { migratePglite } from "@/db/migrate";
import {
  createDestination,
  rotateDestinationSecret,
  setDestinationState,
  updateDestination,
} from "@/lib/forward/manage";
import { getEventForwards, listDestinationOverview } from "@/lib/forward/reads";
import { replayWindow } from "@/lib/forward/replay-window";
import { countRequeueableForwards, requeueForward, requeueForwards } from "@/lib/forward/requeue";
import { sendTestDelivery } from "@/lib/forward/test-delivery";
import { startDestination } from "../forward/destination-server";
import { context } from "../forward/console-helpers";

// PGlite has one connection: a verb that reads through the pool while its own transaction is open waits on
// itself forever. Each forwarding verb must finish on it, well inside this bound.
const BOUND_MS = 10_000;
const within = <T>(p: Promise<T>, what: string) =>
  Promise.race([
    p,
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`${what} did not finish in ${BOUND_MS} ms on PGlite`)), BOUND_MS).unref(),
    ),
  ]);

let handle: DbHandle;
beforeAll(async () => {
  handle = await connectPglite("memory://");
  await migratePglite(handle);
}, 180_000);
afterAll(async () => handle?.close());

describe("forwarding verbs on the embedded database (one connection)", () => {
  it("[pglite] each destination and forward verb finishes, and each change is audited", async () => {
    const { db } = handle;
    const ctx = context(db);
    const dest = await startDestination();
    try {
      await within(createDestination(ctx, { name: "billing", url: dest.url }), "createDestination");
      await within(updateDestination(ctx, { name: "billing", url: dest.url, maxAttempts: 2 }), "updateDestination");
      await within(rotateDestinationSecret(ctx, { name: "billing" }), "rotateDestinationSecret");
      await within(setDestinationState(ctx, { name: "billing", state: "paused" }), "setDestinationState");
      expect((await within(sendTestDelivery(ctx, { name: "billing" }), "sendTestDelivery")).status).toBe(200);
      await db.execute(sql`
        insert into webhook_event_body (source, event_id, raw_body, headers) values ('stripe', 'evt_p1', '{}', '{}')`);
      await db.execute(sql`
        insert into webhook_event_state (source, event_id, event_type, status) values ('stripe', 'evt_p1', 'x', 'settled')`);
      const from = new Date(Date.now() - 3600_000);
      const to = new Date(Date.now() + 3600_000);
      expect(await within(replayWindow(ctx, { destination: "billing", from, to }), "replayWindow")).toMatchObject({
        queued: 1,
      });
      await db.execute(sql`update forward set status = 'dead'`);
      const key = { destination: "billing", source: "stripe", eventId: "evt_p1" };
      await within(requeueForward(ctx, key), "requeueForward");
      await db.execute(sql`update forward set status = 'dead'`);
      const n = await within(
        countRequeueableForwards(ctx, { destination: "billing", statuses: ["dead"] }),
        "countRequeueableForwards",
      );
      await within(
        requeueForwards(ctx, { destination: "billing", statuses: ["dead"], confirmed: n }),
        "requeueForwards",
      );
      expect((await within(listDestinationOverview(db, ctx.actor), "listDestinationOverview"))[0]).toMatchObject({
        pending: 1,
      });
      expect(await within(getEventForwards(db, ctx.actor, key), "getEventForwards")).toMatchObject([
        { destination: "billing", kind: "forward", status: "pending" },
      ]);
      const audit = rowsOf<{ action: string; result: string }>(
        await db.execute(sql`select action, result from audit_log order by id`),
      );
      expect(audit.map((a) => `${a.action} ${a.result}`)).toEqual([
        "destinations.create ok",
        "destinations.update ok",
        "destinations.rotate-secret ok",
        "destinations.set-state ok",
        "destinations.test ok",
        "forwards.replay ok",
        "forwards.requeue ok",
        "forwards.requeue-bulk ok",
      ]);
    } finally {
      await dest.close();
    }
  });
});
