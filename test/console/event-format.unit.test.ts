import { describe, expect, it } from "vitest";
import {
  budgetPosition,
  providerTime,
  splitError,
  versionInstant,
} from "@/app/(console)/events/[source]/[eventId]/_components/format";

describe("the event page's words for numbers", () => {
  it("[event page] reads a version as seconds, milliseconds or microseconds, and a small one as a counter", () => {
    expect(versionInstant(1_712_917_129)?.at.toISOString()).toBe("2024-04-12T10:18:49.000Z");
    expect(versionInstant(1_712_917_129_123)?.at.toISOString()).toBe("2024-04-12T10:18:49.123Z");
    expect(versionInstant(1_712_917_129_123_456)).toEqual({ at: new Date("2024-04-12T10:18:49.123Z"), ms: true });
    expect(versionInstant(42)).toBeUndefined();
  });

  it("[event page] finds the provider's own time in the payload, unix seconds or ISO", () => {
    expect(providerTime("stripe", { created: 1_712_917_129 })).toEqual({ value: 1_712_917_129, field: "created" });
    expect(providerTime("paddle", { occurred_at: "2024-04-12T10:18:49.123456Z" })).toEqual({
      value: "2024-04-12T10:18:49.123456Z",
      field: "occurred_at",
    });
    expect(providerTime("stripe", { created: "soon" })).toBeUndefined();
    expect(providerTime("github", { created_at: 1_712_917_129 })).toBeUndefined();
    expect(providerTime(undefined, { timestamp: "2024-04-12T10:18:49Z" })?.field).toBe("timestamp");
  });

  it("[event page] counts each attempt within the budget it ran in: a requeue starts a new one", () => {
    const attempts = [1, 2, 3].map((number) => ({ number, trigger: "auto" }));
    expect([...budgetPosition(attempts, 0).values()]).toEqual([1, 2, 3]);
    const requeued = [...attempts, { number: 4, trigger: "requeue" }, { number: 5, trigger: "auto" }];
    expect([...budgetPosition(requeued, 3).values()]).toEqual([1, 2, 3, 1, 2]);
    // Process now on a dead event restarts it too: only attempts_base says so.
    const processed = [...attempts, { number: 4, trigger: "process-now" }];
    expect([...budgetPosition(processed, 3).values()]).toEqual([1, 2, 3, 1]);
  });

  it("[event page] takes the worker's permanent: prefix off an error", () => {
    expect(splitError("permanent: payload has no data.object.id")).toEqual({
      reason: "payload has no data.object.id",
      permanent: true,
    });
    expect(splitError("downstream timeout")).toEqual({ reason: "downstream timeout", permanent: false });
    expect(splitError(null)).toEqual({ reason: null, permanent: false });
  });
});
