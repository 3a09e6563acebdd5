import { describe, expect, it } from "vitest";
import { pauseAfter } from "@/lib/retention/settings";

describe("the prune's duty share", () => {
  it("pauses long enough after each batch that the batches take at most the share of the time", () => {
    // 25 %: a 30 ms batch is followed by 90 ms, so the prune's statements run a quarter of the time.
    expect(pauseAfter({ pauseMs: 20, dutyPercent: 25 }, 30)).toBe(90);
    // A slow batch (a busy database) gets a longer pause, not the next batch at once.
    expect(pauseAfter({ pauseMs: 20, dutyPercent: 25 }, 400)).toBe(1200);
    expect(pauseAfter({ pauseMs: 0, dutyPercent: 50 }, 10)).toBe(10);
  });

  it("never pauses less than RETENTION_PAUSE_MS, and not at all at 100 % with no pause", () => {
    expect(pauseAfter({ pauseMs: 20, dutyPercent: 25 }, 2)).toBe(20);
    expect(pauseAfter({ pauseMs: 0, dutyPercent: 100 }, 500)).toBe(0);
  });
});
