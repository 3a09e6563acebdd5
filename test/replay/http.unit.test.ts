import { describe, expect, it } from "vitest";
import { nextCursorFromLink } from "@/lib/replay/github";
import { redact, retryAfterMs } from "@/lib/replay/http";

describe("replay HTTP details", () => {
  it("[replay] Retry-After is read as seconds or an HTTP date, and GitHub's exhausted rate limit as its reset time", () => {
    const now = Date.parse("2026-11-01T10:00:00Z");
    expect(retryAfterMs(new Headers({ "retry-after": "7" }), now)).toBe(7000);
    expect(retryAfterMs(new Headers({ "retry-after": "Sun, 01 Nov 2026 10:00:30 GMT" }), now)).toBe(30_000);
    expect(
      retryAfterMs(new Headers({ "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(now / 1000 + 12) }), now),
    ).toBe(12_000);
    expect(
      retryAfterMs(new Headers({ "x-ratelimit-remaining": "10", "x-ratelimit-reset": String(now / 1000 + 12) }), now),
    ).toBeUndefined();
  });

  it("[replay] GitHub's next cursor comes from the Link header's rel=next, and there is none on the last page", () => {
    const link =
      '<https://api.github.com/repos/o/r/hooks/1/deliveries?per_page=100&cursor=v1_12077215967>; rel="next", ' +
      '<https://api.github.com/repos/o/r/hooks/1/deliveries?per_page=100>; rel="first"';
    expect(nextCursorFromLink(link)).toBe("v1_12077215967");
    expect(nextCursorFromLink('<https://api.github.com/x?per_page=100>; rel="first"')).toBeUndefined();
    expect(nextCursorFromLink(null)).toBeUndefined();
  });

  it("[replay] credentials are cut out of any text an error could carry", () => {
    expect(redact("Invalid API Key provided: sk_test_abc123XYZ", ["sk_test_abc123XYZ"])).toBe(
      "Invalid API Key provided: [redacted]",
    );
  });
});
