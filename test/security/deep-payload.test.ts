import { sql } from "drizzle-orm";
import { createElement } from "react";
import { renderToString } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { ZodError } from "zod";
import { JsonViewer } from "@/components/json-viewer";
import type { Actor } from "@/lib/roles";
import { exportEvent, exportJson, getEventDetail } from "@/lib/console/event-detail";
import { EventFilter } from "@/lib/console/event-filter";
import { listEvents } from "@/lib/console/list-events";
import { eventKeyFromParams } from "@/lib/ledger/params";
import { setupTestDb } from "../db";
import { seedEvents } from "@/test/seed-events";

// Rows the receiver would refuse today (it stops at 64 levels) but older rows or a replay may hold.
const { db } = setupTestDb();
const support: Actor = { id: "u1", email: "support@example.com", role: "support" };
const noSecrets = () => Promise.resolve(undefined);

async function insertRaw(eventId: string, raw: string) {
  await seedEvents(
    db,
    "source, event_id, event_type, payload, raw_body, headers, status",
    sql`values ('stripe', ${eventId}, 'x', ${raw}::jsonb, ${raw}, '{}'::jsonb, 'settled')`,
  );
}

const deep = (levels: number) => `{"id":"evt_deep","type":"x","data":${'{"a":'.repeat(levels)}1${"}".repeat(levels)}}`;

/**
 * A hang guard, not a speed test (speed is for benchmarks): the size bounds catch a blow-up in output, this one in
 * time. A render takes well under a second here, and just over one on a machine at load 15.
 */
const HANG_MS = 10_000;

function timed<T>(f: () => T): [T, number] {
  const started = performance.now();
  const out = f();
  return [out, performance.now() - started];
}

describe("a stored payload nested 5,000 levels deep", () => {
  it("[security] the event page's viewer shows it as bounded text with a note, without hanging", async () => {
    const raw = deep(5000);
    await insertRaw("evt_deep", raw);
    const d = await getEventDetail(db, support, { source: "stripe", eventId: "evt_deep" }, noSecrets);
    for (const value of [JSON.parse(d.event.rawBody) as unknown, d.event.payload]) {
      const [html, ms] = timed(() => renderToString(createElement(JsonViewer, { value })));
      expect(html).toContain("nests deeper than 32 levels");
      expect(html.length).toBeLessThan(3 * raw.length + 4096);
      expect(ms).toBeLessThan(HANG_MS);
    }
    const [html] = timed(() =>
      renderToString(createElement(JsonViewer, { value: d.event.payload, raw: d.event.rawBody })),
    );
    expect(html).toContain(raw.slice(0, 200).replaceAll('"', "&quot;"));
  });

  it("[security] its export is bounded and well-formed: the parsed payload left out, the raw body kept", async () => {
    const raw = deep(5000);
    await insertRaw("evt_deep_x", raw);
    const doc = await exportEvent(db, support, { source: "stripe", eventId: "evt_deep_x" }, noSecrets);
    const [text, ms] = timed(() => exportJson(doc));
    expect(ms).toBeLessThan(HANG_MS);
    // Linear: the raw body twice (event.rawBody and rawBody), its quotes escaped. Indented, the payload alone was ~50 MB.
    expect(text.length).toBeLessThan(3 * raw.length + 16 * 1024);
    const back = JSON.parse(text) as { rawBody: string; payloadOmitted?: string; event: { payload: unknown } };
    expect(back.rawBody).toBe(raw);
    expect(back.event.payload).toBeNull();
    expect(back.payloadOmitted).toMatch(/deeper than 64 levels/);
  });

  it("[security] a payload within the receiver's depth still exports in full, indented", async () => {
    const raw = deep(40);
    await insertRaw("evt_deep_ok", raw);
    const doc = await exportEvent(db, support, { source: "stripe", eventId: "evt_deep_ok" }, noSecrets);
    const back = JSON.parse(exportJson(doc)) as { event: { payload: unknown }; payloadOmitted?: string };
    expect(back.event.payload).toEqual(JSON.parse(raw));
    expect(back.payloadOmitted).toBeUndefined();
  });
});

describe("the viewer's other bounds", () => {
  it("[security] a wide payload (100,000 values) is text, not 100,000 rows of buttons", () => {
    const value = { items: Array.from({ length: 100_000 }, (_, i) => i) };
    const [html, ms] = timed(() => renderToString(createElement(JsonViewer, { value })));
    expect(html).toContain("more than 5,000 values");
    expect(html.length).toBeLessThan(300 * 1024);
    expect(ms).toBeLessThan(HANG_MS);
  });

  it("[security] long keys repeated in every path cannot blow up the page", () => {
    const key = "k".repeat(100_000);
    const value = { [key]: Array.from({ length: 2000 }, () => 0) };
    const html = renderToString(createElement(JsonViewer, { value }));
    expect(html.length).toBeLessThan(300 * 1024);
  });

  it("[security] an ordinary payload is still a tree, its text escaped", () => {
    const html = renderToString(
      createElement(JsonViewer, { value: { data: { object: { id: "sub_1", note: "<script>x</script>" } } } }),
    );
    expect(html).toContain('data-path="data.object.id"');
    expect(html).not.toContain("<script>");
    expect(html).not.toContain("Shown as text");
  });
});

describe("console params no row can have", () => {
  it("[security] the event page's key: a source no slug can be → 404, NUL / 400 characters / a lone surrogate → 400, a literal % is kept", () => {
    expect(eventKeyFromParams({ source: "Not A Slug", eventId: "evt_1" })).toMatchObject({ ok: false, status: 404 });
    expect(eventKeyFromParams({ source: "-dash-first", eventId: "evt_1" })).toMatchObject({ ok: false, status: 404 });
    expect(eventKeyFromParams({ source: "%ff", eventId: "evt_1" })).toMatchObject({ ok: false, status: 404 });
    expect(eventKeyFromParams({ source: "stripe", eventId: "evt\u0000" })).toEqual({
      ok: false,
      status: 400,
      error: "the event id contains U+0000 (NUL)",
    });
    expect(eventKeyFromParams({ source: "stripe", eventId: "evt%00" })).toMatchObject({ ok: false, status: 400 });
    expect(eventKeyFromParams({ source: "stripe", eventId: "e".repeat(400) })).toEqual({
      ok: false,
      status: 400,
      error: "the event id is longer than 255 characters",
    });
    expect(eventKeyFromParams({ source: "stripe", eventId: "\ud800" })).toMatchObject({ ok: false, status: 400 });
    expect(eventKeyFromParams({ source: "stripe", eventId: "100%ff" })).toEqual({
      ok: true,
      value: { source: "stripe", eventId: "100%ff" },
    });
    expect(eventKeyFromParams({ source: "stripe", eventId: "evt_%E2%9C%93" })).toEqual({
      ok: true,
      value: { source: "stripe", eventId: "evt_✓" },
    });
  });

  it("[security] a NUL or a lone surrogate in q or type is the caller's mistake (a ZodError the page shows), not a database error", async () => {
    for (const filter of [
      { q: "cus_\u0000" },
      { type: ["x\u0000"] },
      { type: "a,b\u0000" },
      { q: "\ud800" },
      { q: "x".repeat(400) },
    ]) {
      const err = await listEvents(db, support, { filter }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ZodError);
    }
    const issues = EventFilter.safeParse({ q: "a\u0000" }).error?.issues.map((i) => i.message);
    expect(issues).toEqual(["the search contains U+0000 (NUL)"]);
    expect(EventFilter.safeParse({ q: "café", type: ["customer.subscription.updated"] }).success).toBe(true);
  });
});
