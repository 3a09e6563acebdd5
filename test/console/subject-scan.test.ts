import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { scanMentions } from "@/db/mentions";
import type { Actor } from "@/lib/roles";
import { getSubjectView } from "@/lib/console/subject";
import { githubPush } from "@/test/fixtures/github-push";
import { setupTestDb } from "../db";
import { depsFor, post } from "../receiver/harness";
import { signGithub, TEST_SECRETS } from "../sign";
import { testSources } from "../sources";
import { drain, testSettings } from "../worker/helpers";
import { seedEvents } from "@/test/seed-events";

const { db } = setupTestDb();
const support: Actor = { id: "s1", email: "support@example.com", role: "support" };
const sources = testSources();
const sourceOf = (slug: string) => Promise.resolve(sources.find(slug));

const LATE = "late.author@example.com";

describe("customer view: mentions the search index does not hold", () => {
  it("[subjects] a push's 70th commit author is found by reading raw bodies, and the view says it is not in the search index", async () => {
    const authors = Array.from({ length: 70 }, (_, i) => ({ name: `Author ${i + 1}`, email: `a${i + 1}@example.com` }));
    authors[69] = { name: "Late Author", email: LATE };
    const body = JSON.stringify(githubPush({ authors }));
    const res = await post(depsFor(db), "github", await signGithub(body, TEST_SECRETS.github, { event: "push" }));
    expect(res.status).toBe(200);
    await drain(db, testSettings());

    const v = await getSubjectView(db, support, { subject: LATE }, sourceOf);
    expect(v.events.map((e) => e.source)).toEqual(["github"]);
    expect(v.found).toBe(1);
    expect(v.scan).toMatchObject({ read: 1, complete: true });
  });

  it("[subjects] a subject no event mentions is said to be nowhere only after every stored event was read", async () => {
    await seedEvents(
      db,
      "source, event_id, event_type, raw_body, headers",
      sql`select 'stripe', 'evt_none_' || g, 'invoice.paid', '{"customer_email":"someone@example.com"}', '{}'
      from generate_series(1, 3) g`,
    );
    const v = await getSubjectView(db, support, { subject: "nobody@example.com" }, sourceOf);
    expect(v.events).toEqual([]);
    expect(v.scan).toMatchObject({ read: 3, complete: true });
  });

  it("[subjects] raw bodies are read in bounded statements (heap blocks, then a byte budget), each event once; a time budget stops it, saying so", async () => {
    // The scan reads in storage order. A table emptied by DELETE keeps the free space earlier files in this slot
    // left, and new rows fill it out of insertion order (CI once read 1,154 small rows in the first statement: the
    // big ones had gone into earlier pages). Rewritten empty, the table stores these rows in the order inserted.
    await db.execute(sql`vacuum full webhook_event_body`);
    // 2,500 small bodies (more heap blocks than one statement reads), then 20 of 1 MB (more bytes than one reads);
    // the mention is in the first stored of each, which a scan from the end reads last.
    await seedEvents(
      db,
      "source, event_id, event_type, raw_body, headers",
      sql`select 'stripe', 'evt_small_' || lpad(g::text, 5, '0'), 'invoice.paid',
             json_build_object('customer_email', case when g = 1 then 'small@example.com' else 'other@example.com' end,
                               'description', repeat('lorem ipsum ', 60))::text,
             '{}'
      from generate_series(1, 2500) g`,
    );
    await seedEvents(
      db,
      "source, event_id, event_type, raw_body, headers",
      sql`select 'stripe', 'evt_big_' || lpad(g::text, 2, '0'), 'invoice.paid',
             json_build_object('customer_email', case when g = 1 then 'big@example.com' else 'other@example.com' end,
                               'description', repeat('x', 1000000))::text,
             '{}'
      from generate_series(1, 20) g`,
    );
    const small = await scanMentions(db, "small@example.com");
    expect(small).toMatchObject({
      read: 2520,
      complete: true,
      keys: [{ source: "stripe", eventId: "evt_small_00001" }],
    });
    const big = await scanMentions(db, "big@example.com");
    expect(big).toMatchObject({ read: 2520, complete: true, keys: [{ source: "stripe", eventId: "evt_big_01" }] });
    const cut = await scanMentions(db, "small@example.com", { budgetMs: 0 });
    expect(cut.complete).toBe(false);
    expect(cut.read).toBeGreaterThan(0);
    expect(cut.read).toBeLessThan(20);
    expect(cut.keys).toEqual([]);
  });
});
