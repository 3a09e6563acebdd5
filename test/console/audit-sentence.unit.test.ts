import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  DESCRIBED_ACTIONS,
  describeAudit,
  sentenceText,
  type AuditRowView,
} from "@/app/(console)/audit/_components/sentence";

const say = (row: Partial<AuditRowView> & Pick<AuditRowView, "action" | "target">, canManageUsers = true) =>
  describeAudit({ detail: {}, result: "ok", ...row }, { canManageUsers });
const text = (row: Parameters<typeof say>[0], canManageUsers = true) => sentenceText(say(row, canManageUsers));
const links = (row: Parameters<typeof say>[0], canManageUsers = true) =>
  say(row, canManageUsers).flatMap((p) => (typeof p === "object" && "href" in p && p.href ? [[p.text, p.href]] : []));

/** Every action name the code writes to the audit log: the `action:` of each entry in lib/ and app/. */
function actionsInCode(): string[] {
  const root = path.resolve(__dirname, "../..");
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const p = path.join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.tsx?$/.test(name) && !name.endsWith(".test.ts")) files.push(p);
    }
  };
  walk(path.join(root, "lib"));
  walk(path.join(root, "app"));
  const found = new Set<string>();
  for (const file of files) {
    const text = readFileSync(file, "utf8");
    if (!/writeAudit|writeAnonymousRefusal|audited\(|requirePermission\(/.test(text)) continue;
    for (const m of text.matchAll(/action: ([^\n]*)/g))
      for (const literal of m[1]!.matchAll(/"([a-z]+\.[a-z-]+)"/g)) found.add(literal[1]!);
  }
  // The one name built from a template: lib/console/resolve-dead.ts and app/(console)/failures/actions.ts.
  found.add("events.resolve-dead").add("events.ignore-dead");
  return [...found].sort();
}

describe("the audit log in words", () => {
  it("[audit] every action the code writes has a sentence", () => {
    const actions = actionsInCode();
    expect(actions.length).toBeGreaterThan(25);
    expect(actions.filter((a) => !DESCRIBED_ACTIONS.includes(a))).toEqual([]);
  });

  it("[audit] a requeue of dead events names each event, linked, and the note", () => {
    const row = {
      action: "events.resolve-dead",
      target: "events",
      detail: {
        resolution: "resolved",
        note: "refunded in Stripe",
        selected: 3,
        keys: ["stripe/evt_1", "stripe/evt_2", "stripe/evt_3"],
        count: 2,
        notDead: ["stripe/evt_3"],
      },
    };
    expect(text(row)).toBe(
      "Marked 2 dead events: stripe/evt_1 and stripe/evt_2 resolved by hand: “refunded in Stripe”; " +
        "stripe/evt_3 was no longer dead",
    );
    expect(links(row)).toContainEqual(["stripe/evt_1", "/events/stripe/evt_1"]);
    expect(text({ action: "events.requeue", target: "event:stripe/evt_1" })).toBe("Requeued event stripe/evt_1");
    expect(text({ ...row, result: "error" })).toBe(
      "Tried to mark 3 dead events: stripe/evt_1, stripe/evt_2 and stripe/evt_3 resolved by hand: “refunded in Stripe”",
    );
    expect(links({ action: "events.requeue", target: "event:stripe/evt 1/x" })).toEqual([
      ["stripe/evt 1/x", "/events/stripe/evt%201%2Fx"],
    ]);
  });

  it("[audit] a refused or failed action says it was tried", () => {
    expect(text({ action: "events.requeue", target: "event:stripe/evt_1", result: "refused" })).toBe(
      "Tried to requeue event stripe/evt_1",
    );
    expect(text({ action: "users.set-role", target: "user:ana@example.com", result: "error" })).toBe(
      "Tried to change the role of ana@example.com",
    );
  });

  it("[audit] user changes name the user, linked only for whoever may manage users", () => {
    const row = { action: "users.set-role", target: "user:ana@example.com", detail: { from: "support", to: "ops" } };
    expect(text(row)).toBe("Changed the role of ana@example.com from support to ops");
    expect(links(row)).toEqual([["ana@example.com", "/users"]]);
    expect(links(row, false)).toEqual([]);
    expect(text({ action: "users.create", target: "user:bo@example.com", detail: { role: "ops" } })).toBe(
      "Added user bo@example.com as ops",
    );
    expect(text({ action: "users.disable", target: "user:bo@example.com", detail: { sessionsEnded: 2 } })).toBe(
      "Disabled bo@example.com, ending 2 sessions",
    );
  });

  it("[audit] a bulk requeue says how many moved and what its filter was", () => {
    const row = {
      action: "events.requeue-bulk",
      target: "events",
      detail: {
        filter: { source: ["stripe", "paddle"], status: ["dead"], type: [], q: "cus_1" },
        confirmed: 5,
        requeued: 4,
        group: { errorKind: "transient", pattern: "timeout after N ms" },
      },
    };
    expect(text(row)).toBe(
      "Requeued 4 events matching source stripe or paddle, status dead, search cus_1 whose error reads timeout after N ms",
    );
  });

  it("[audit] sources, replays, alerts and sign-ins read as sentences with their times as dates", () => {
    expect(
      say({
        action: "sources.add-secret",
        target: "source:shop-eu",
        detail: { fingerprint: "ab12cd34", generated: true, retireOthersAt: "2026-01-02T03:04:05.000Z", retiring: 1 },
      }),
    ).toEqual([
      "Added",
      " a secret",
      " ",
      { text: "ab12cd34", code: true },
      " to source ",
      { text: "shop-eu", code: true, href: "/sources/shop-eu" },
      "; 1 older secret stops verifying at ",
      { at: "2026-01-02T03:04:05.000Z" },
    ]);
    expect(
      text({
        action: "replay.start",
        target: "replay:stripe",
        detail: { since: "2026-01-01T00:00:00.000Z", until: "now", types: ["invoice.paid"] },
      }),
    ).toBe("Started a replay of stripe from 2026-01-01T00:00:00.000Z until now, types invoice.paid");
    expect(text({ action: "replay.cancel", target: "replay:12" })).toBe("Cancelled replay run #12");
    expect(
      text({ action: "alerts.set-rule", target: "alert-rule:backlog", detail: { enabled: true, threshold: 500 } }),
    ).toBe("Set alert rule backlog on at 500");
    expect(text({ action: "auth.sign-in", target: "user:a@example.com", detail: { ip: "203.0.113.9" } })).toBe(
      "Signed in from 203.0.113.9",
    );
    expect(
      text({
        action: "auth.sign-in-failed",
        target: "user:a@example.com",
        result: "refused",
        detail: { ip: "203.0.113.9" },
      }),
    ).toBe("A sign-in as a@example.com was refused from 203.0.113.9");
    expect(
      text({
        action: "sources.test-event",
        target: "source:stripe",
        detail: { eventId: "evt_test_1", status: 200 },
      }),
    ).toBe("Sent a test event to source stripe: the receiver answered 200, stored as stripe/evt_test_1");
    expect(
      text({
        action: "subjects.bundle",
        target: "subject:sha256:ab",
        detail: { format: "json", events: ["stripe/evt_1", "stripe/evt_2"], omitted: 0, found: 2 },
      }),
    ).toBe("Downloaded a dispute bundle (json) of 2 events: stripe/evt_1 and stripe/evt_2");
  });

  it("[audit] a long list is cut at five, with how many more", () => {
    const keys = Array.from({ length: 8 }, (_, i) => `stripe/evt_${i}`);
    expect(text({ action: "events.ignore-dead", target: "events", detail: { keys, count: 8 } })).toBe(
      "Marked 8 dead events: stripe/evt_0, stripe/evt_1, stripe/evt_2, stripe/evt_3, stripe/evt_4 and 3 more ignored",
    );
  });

  it("[audit] an unknown action reads as its name, its target and its detail", () => {
    expect(text({ action: "future.thing", target: "thing:1", detail: { a: 1 } })).toBe('future.thing thing:1: {"a":1}');
    expect(text({ action: "future.thing", target: "thing:1" })).toBe("future.thing thing:1");
  });
});
