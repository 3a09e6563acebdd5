import { createHash } from "node:crypto";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { setupTestDb } from "../db";
import { signGithub, signShopify, signStripe, TEST_SECRETS } from "../sign";
import { query } from "../worker/helpers";
import { counts, depsFor, post } from "./harness";

const { db } = setupTestDb();
const deps = depsFor(db);

describe("providers whose delivery id is not signed", () => {
  it("[receiver] a captured GitHub delivery re-sent with a new X-GitHub-Delivery (and another event header) is a duplicate, not a second event", async () => {
    const body = JSON.stringify({
      action: "opened",
      issue: { id: 1, number: 7, title: "captured" },
      repository: { id: 9, full_name: "octo-org/octo-repo" },
    });
    const first = await post(
      deps,
      "github",
      await signGithub(body, TEST_SECRETS.github, { delivery: "guid-original", event: "issues" }),
    );
    const replayed = await post(
      deps,
      "github",
      await signGithub(body, TEST_SECRETS.github, { delivery: "guid-forged", event: "pull_request" }),
    );
    expect([first.body.duplicate, replayed.body.duplicate]).toEqual([false, true]);
    expect(await query(db, sql`select event_id, event_type from webhook_event`)).toEqual([
      { event_id: "guid-original", event_type: "issues.opened" },
    ]);
    // A genuine new event differs in its bytes: it is claimed.
    const next = JSON.stringify({
      action: "closed",
      issue: { id: 1, number: 7, title: "captured" },
      repository: { id: 9, full_name: "octo-org/octo-repo" },
    });
    expect(
      (await post(deps, "github", await signGithub(next, TEST_SECRETS.github, { delivery: "guid-next" }))).body
        .duplicate,
    ).toBe(false);
  });

  it("[receiver] a captured Shopify delivery re-sent with new webhook and event ids is a duplicate", async () => {
    const body = JSON.stringify({
      id: 820982911946154508,
      email: "jon@example.com",
      updated_at: "2026-11-01T10:00:00-05:00",
    });
    const first = await post(
      deps,
      "shopify",
      signShopify(body, TEST_SECRETS.shopify, { webhookId: "w-1", eventId: "e-1" }),
    );
    const replayed = await post(
      deps,
      "shopify",
      signShopify(body, TEST_SECRETS.shopify, { webhookId: "w-2", eventId: "e-2" }),
    );
    expect([first.status, replayed.status, first.body.duplicate, replayed.body.duplicate]).toEqual([
      200,
      200,
      false,
      true,
    ]);
    expect(await counts(db)).toEqual({ events: 1, deliveries: 2 });
  });

  it("[receiver] every event keeps the SHA-256 of its exact raw body, whatever its provider", async () => {
    const body = JSON.stringify({
      id: "evt_hash",
      object: "event",
      type: "invoice.paid",
      created: 1_760_000_000,
      data: { object: { id: "in_1" } },
    });
    expect((await post(deps, "stripe", signStripe(body, TEST_SECRETS.stripe))).status).toBe(200);
    const [row] = await query<{ sha: string }>(db, sql`select body_sha256 as sha from webhook_event`);
    expect(row?.sha).toBe(createHash("sha256").update(body).digest("hex"));
  });
});
