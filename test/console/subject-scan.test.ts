import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { scanMentions } from "@/db/mentions";
import type { Actor } from "@/lib/auth/roles";
import { getSubjectView } from "@/lib/ledger/subject";
import { githubPush } from "@/test/fixtures/github-push";
import { setupTestDb } from "../db";
import { depsFor, post } from "../receiver/harness";
import { signGithub, TEST_SECRETS } from "../sign";
import { testSources } from "../sources";
import { drain, testSettings } from "../worker/helpers";

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
    await db.execute(sql`insert into webhook_event (source, event_id, event_type, raw_body, headers)
      select 'stripe', 'evt_none_' || g, 'invoice.paid', '{"customer_email":"someone@example.com"}', '{}'
      from generate_series(1, 3) g`);
    const v = await getSubjectView(db, support, { subject: "nobody@example.com" }, sourceOf);
    expect(v.events).toEqual([]);
    expect(v.scan).toMatchObject({ read: 3, complete: true });
  });

  it("[subjects] raw bodies are read in bounded statements across events that arrived in one instant; a time budget stops it, saying so", async () => {
    // One statement, one now(): 2,500 events share their arrival time; the mention is on the last one read.
    await db.execute(sql`insert into webhook_event (source, event_id, event_type, raw_body, headers)
      select 'stripe', 'evt_tie_' || lpad(g::text, 5, '0'), 'invoice.paid',
             case when g = 1 then '{"customer_email":"tie@example.com"}' else '{"customer_email":"other@example.com"}' end,
             '{}'
      from generate_series(1, 2500) g`);
    const all = await scanMentions(db, "tie@example.com");
    expect(all).toMatchObject({ read: 2500, complete: true, keys: [{ source: "stripe", eventId: "evt_tie_00001" }] });
    const cut = await scanMentions(db, "tie@example.com", { budgetMs: 0 });
    expect(cut).toMatchObject({ read: 1000, complete: false, keys: [] });
  });
});
