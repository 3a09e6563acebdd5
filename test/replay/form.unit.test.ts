import { describe, expect, it } from "vitest";
import {
  formatUtcDateTime,
  getReplayWindow,
  parseUtcDateTime,
  replaySourceSetup,
  type ReplayFormValues,
} from "@/lib/replay/form";

const now = new Date("2026-12-01T15:00:00Z");
const opts = { ready: ["stripe"] as const, now };
const form = (v: Partial<ReplayFormValues>): ReplayFormValues => ({
  source: "stripe",
  since: "2026-11-01 10:00",
  until: "2026-11-01 10:40",
  types: "",
  ...v,
});

describe("the console's replay form", () => {
  it("[replay] a 24 h UTC window is read as UTC whatever the process's zone, with or without T, seconds or Z", () => {
    expect(parseUtcDateTime("2026-11-01 21:30")?.toISOString()).toBe("2026-11-01T21:30:00.000Z");
    expect(parseUtcDateTime("2026-11-01T21:30:05Z")?.toISOString()).toBe("2026-11-01T21:30:05.000Z");
    expect(parseUtcDateTime(" 2026-11-01 21:30 UTC ")?.toISOString()).toBe("2026-11-01T21:30:00.000Z");
    expect(parseUtcDateTime("2026-11-01")?.toISOString()).toBe("2026-11-01T00:00:00.000Z");
    for (const bad of [
      "11/01/2026 09:30 PM",
      "2026-02-30 10:00",
      "2026-11-01 24:00",
      "2026-11-01 10:00:75",
      "2026-11-01 9:30",
      "soon",
    ])
      expect(parseUtcDateTime(bad), bad).toBeUndefined();
    expect(formatUtcDateTime(new Date("2026-11-01T21:30:00Z"))).toBe("2026-11-01 21:30");
    expect(formatUtcDateTime(new Date("2026-11-01T21:30:07Z"))).toBe("2026-11-01 21:30:07");
    // The process's zone changes nothing (Node reads TZ again whenever it is set).
    const zone = process.env.TZ;
    try {
      for (const tz of ["Pacific/Kiritimati", "America/St_Johns"]) {
        process.env.TZ = tz;
        expect(new Date("2026-11-01T21:30:00Z").getTimezoneOffset(), tz).not.toBe(0); // the zone did change
        expect(parseUtcDateTime("2026-11-01 21:30")?.toISOString(), tz).toBe("2026-11-01T21:30:00.000Z");
        expect(formatUtcDateTime(new Date("2026-11-01T21:30:00Z")), tz).toBe("2026-11-01 21:30");
      }
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    }
  });

  it("[replay] a valid window becomes the replay's input; a blank end means now; types split on commas", () => {
    expect(getReplayWindow(form({ types: "invoice.paid, customer.created" }), opts)).toEqual({
      ok: true,
      input: {
        source: "stripe",
        since: new Date("2026-11-01T10:00:00Z"),
        until: new Date("2026-11-01T10:40:00Z"),
        types: ["invoice.paid", "customer.created"],
      },
    });
    const open = getReplayWindow(form({ since: "2026-11-30 15:00", until: "" }), opts);
    expect(open).toMatchObject({ ok: true, input: { until: undefined } });
  });

  it("[replay] each wrong field gets a message a person can act on, named after the field", () => {
    expect(getReplayWindow(form({ source: "" }), opts)).toEqual({ ok: false, errors: { source: "Choose a source" } });
    expect(getReplayWindow(form({ source: "paddle" }), opts)).toEqual({
      ok: false,
      errors: { source: expect.stringContaining("Set PADDLE_API_KEY") },
    });
    expect(getReplayWindow(form({ since: "", until: "11/01/2026 10:40 AM" }), opts)).toEqual({
      ok: false,
      errors: {
        since: expect.stringMatching(/^Give the start/),
        until: expect.stringMatching(/^The end must be a UTC date and 24 h time like .* \(YYYY-MM-DD HH:MM\)$/),
      },
    });
    expect(getReplayWindow(form({ since: "2026-11-01 11:00" }), opts)).toEqual({
      ok: false,
      errors: { since: "The start must be before the end" },
    });
    expect(getReplayWindow(form({ since: "2026-12-02 10:00", until: "" }), opts)).toEqual({
      ok: false,
      errors: { since: expect.stringMatching(/^The start is in the future/) },
    });
    expect(getReplayWindow(form({ since: "2026-09-01 10:00" }), opts)).toEqual({
      ok: false,
      errors: { since: expect.stringMatching(/^A Stripe window is at most 30 days .*; this one is 62 days$/) },
    });
  });

  it("[replay] the setup names the variables still to set, never a value", () => {
    const setup = replaySourceSetup({
      stripe: { base: "https://api.stripe.com", key: "sk_test_secret_value" },
      github: { base: "https://api.github.com", token: "ghp_secret", hook: undefined },
      paddle: { base: "https://api.paddle.com", key: undefined },
    });
    expect(setup.map((s) => [s.source, s.ready, s.missing])).toEqual([
      ["stripe", true, []],
      ["github", false, ["GITHUB_REPLAY_HOOK"]],
      ["paddle", false, ["PADDLE_API_KEY"]],
    ]);
    expect(JSON.stringify(setup)).not.toMatch(/sk_test_secret_value|ghp_secret/);
  });
});
