import { sql } from "drizzle-orm";
import { beforeEach, describe, expect, it } from "vitest";
import { resolveSearch, searchProbeQuery } from "@/lib/console/event-filter";
import { findTermsQuery, PREFIX_TERM_LIMIT } from "@/lib/ledger/subject-terms";
import { setupTestDb } from "../db";
import { query } from "../worker/helpers";
import { seedEvents } from "@/test/seed-events";

const { db } = setupTestDb();

beforeEach(async () => {
  await db.execute(sql`truncate subject_term`);
});

const plan = async (q: ReturnType<typeof sql>) =>
  (await query<{ "QUERY PLAN": string }>(db, sql`explain ${q}`)).map((r) => r["QUERY PLAN"]).join("\n");

describe("prefix search plans", () => {
  it("[search] a prefix is a range of the directory's primary key and its subjects a GIN probe: no sequential scan", async () => {
    // 60,000 events of 20,000 customers, each with an id every row shares; the directory that goes with them.
    await seedEvents(
      db,
      "source, event_id, event_type, payload, raw_body, headers, status, subject_ids, received_at",
      sql`
      select 'stripe', 'evt_plan_' || g, 'invoice.paid', '{}'::jsonb, '{}', '{}'::jsonb, 'settled',
             array['cus_Plan' || lpad((g % 20000)::text, 8, '0'), 'user' || (g % 20000) || '@example.com',
                   'price_1SharedByAll0', 'evt_plan_' || g],
             now() - g * interval '1 second'
      from generate_series(1, 60000) g`,
    );
    await db.execute(sql`
      insert into subject_term (term, subject, field, value)
      select lower(s), s, 'id', s from (select distinct unnest(subject_ids) s from webhook_event) x`);
    await db.execute(sql`analyze webhook_event_state, webhook_event_body, subject_term`);

    for (const prefix of ["cus_plan0001", "USER12", "cus_Plan%"]) {
      const terms = await plan(findTermsQuery(prefix, PREFIX_TERM_LIMIT + 1));
      expect(terms).toMatch(/Index (Only )?Scan using subject_term_term_subject_pk/);
      expect(terms).not.toMatch(/Seq Scan|Sort/);
    }
    const search = await resolveSearch(db, "cus_Plan0001");
    expect(search.subjects.size).toBe(PREFIX_TERM_LIMIT + 1);
    const probe = await plan(searchProbeQuery(search));
    expect(probe).toMatch(/Bitmap Index Scan on webhook_event_subject_ids_idx/);
    expect(probe).not.toMatch(/Seq Scan|webhook_event_received_idx/);
  });
});
