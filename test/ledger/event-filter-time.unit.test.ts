import { describe, expect, it } from "vitest";
import { EventFilter } from "@/lib/console/event-filter";

describe("[events] the filter's times are typed in UTC on a 24-hour clock", () => {
  it("reads '2026-11-29 18:30' as 18:30 UTC, whatever the server's zone", () => {
    expect(EventFilter.parse({ from: "2026-11-29 18:30" }).from?.toISOString()).toBe("2026-11-29T18:30:00.000Z");
  });
  it("reads datetime-local's T form and a bare date (its midnight) as UTC", () => {
    expect(EventFilter.parse({ from: "2026-11-29T07:05" }).from?.toISOString()).toBe("2026-11-29T07:05:00.000Z");
    expect(EventFilter.parse({ to: "2026-11-29" }).to?.toISOString()).toBe("2026-11-29T00:00:00.000Z");
  });
  it("keeps an explicit zone", () => {
    expect(EventFilter.parse({ from: "2026-11-29T10:00+02:00" }).from?.toISOString()).toBe("2026-11-29T08:00:00.000Z");
  });
  it("refuses a time it cannot read, with the format to use", () => {
    const r = EventFilter.safeParse({ from: "29/11/2026 6pm" });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.message).toBe('"29/11/2026 6pm" is not a date and time (use 2026-11-29 10:00, UTC)');
  });
});
