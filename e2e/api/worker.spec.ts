import { randomUUID } from "node:crypto";
import { expect, test } from "@playwright/test";
import { stripeSubscriptionEvent } from "../../test/fixtures/stripe";
import { signStripe } from "../../test/sign";
import { e2eSql, settledCount } from "../db";

const sql = e2eSql();
test.afterAll(async () => sql.end());

test("[api] the built app processes a claimed subscription event right after answering, newest state winning", async ({
  request,
}) => {
  const subscriptionId = `sub_E2e${randomUUID().replaceAll("-", "").slice(0, 14)}`;
  const send = async (eventId: string, created: number, status: string) => {
    const d = signStripe(
      JSON.stringify(stripeSubscriptionEvent({ eventId, created, status, subscriptionId })),
      "whsec_e2e_stripe",
    );
    expect((await request.post("/api/webhooks/stripe", { headers: d.headers, data: d.body })).status()).toBe(200);
  };
  const newer = `evt_${randomUUID().slice(0, 8)}_new`;
  const older = `evt_${randomUUID().slice(0, 8)}_old`;
  await send(newer, 2_000, "active");
  // A 200 means claimed: the older event goes in once the newer one is applied, so it must be weighed against it.
  await expect.poll(() => settledCount(sql, [newer]), { timeout: 30_000 }).toBe(1);
  await send(older, 1_000, "past_due");
  await expect.poll(() => settledCount(sql, [newer, older]), { timeout: 30_000 }).toBe(2);
  expect(await sql`select status, version::int from subscription where external_id = ${subscriptionId}`).toEqual([
    { status: "active", version: 2000 },
  ]);
  const timeline = await sql`select outcome from entity_transition where entity_id = ${subscriptionId} order by id`;
  expect(timeline.map((t) => t.outcome)).toEqual(["applied", "stale"]);
});
