import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectPglite, rowsOf, type DbHandle } from "@/db/client";
import { migratePglite } from "@/db/migrate";
import type { Actor } from "@/lib/roles";
import { getSubjectView } from "@/lib/console/subject";
import { eraseSubject, previewErasure } from "@/lib/retention/erase";
import { claimOne } from "@/test/claim";

let handle: DbHandle;
beforeAll(async () => {
  handle = await connectPglite("memory://");
  await migratePglite(handle);
}, 180_000);
afterAll(async () => handle.close());

const admin: Actor = { id: "a1", email: "admin@example.com", role: "admin" };
const OCONNOR = "o'connor@example.com";

describe("erasure on the embedded database (PGlite)", () => {
  it("[pglite] a mention the search index does not hold is found by reading stored bodies, erased, and verified gone", async () => {
    const { db } = handle;
    const body = { object: "customer", id: "cus_PgliteOConnor1", email: "O\u0027Connor@example.com" };
    await claimOne(db, {
      source: "stripe",
      eventId: "evt_pglite_erase1",
      eventType: "customer.created",
      rawBody: JSON.stringify(body).replace("'", "\\u0027"),
      headers: {},
      subjectIds: ["cus_PgliteOConnor1"],
    });
    const view = await getSubjectView(db, admin, { subject: OCONNOR }, () => Promise.resolve(undefined));
    expect(view.events.map((e) => e.eventId)).toEqual(["evt_pglite_erase1"]);
    expect(await previewErasure(db, admin, { subject: OCONNOR })).toMatchObject({ events: 1, indexed: 0 });
    expect(await eraseSubject({ db, actor: admin, input: { subject: OCONNOR, expectedEvents: 1 } })).toMatchObject({
      done: true,
      events: 1,
      remaining: [],
    });
    const [row] = rowsOf<{ raw_body: string }>(
      await db.execute(sql`select raw_body from webhook_event where event_id = 'evt_pglite_erase1'`),
    );
    expect(row?.raw_body).toContain("data subject erasure");
  });
});
