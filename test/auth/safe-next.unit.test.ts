import { describe, expect, it } from "vitest";
import { safeNext, signInPath } from "@/app/sign-in/safe-next";

/** What `?next=` decodes to (Next hands the page the value decoded once), from the raw query text. */
const fromQuery = (raw: string) => new URLSearchParams(`next=${raw}`).get("next")!;

/** Where a browser on the app would really go with this value as Location / router target. */
const landsOn = (target: string) => new URL(target, "http://127.0.0.1:3000/sign-in").origin;

const BYPASSES: [string, string][] = [
  ["protocol-relative", "//evil.test"],
  ["protocol-relative, encoded", fromQuery("%2F%2Fevil.test")],
  ["backslash after slash", "/\\evil.test"],
  ["backslash after slash, encoded", fromQuery("%2F%5Cevil.test")],
  ["double backslash", "\\\\evil.test"],
  ["tab between slashes", fromQuery("%2F%09%2Fevil.test")],
  ["newline between slashes", fromQuery("%2F%0A%2Fevil.test")],
  ["carriage return between slashes", fromQuery("%2F%0D%2Fevil.test")],
  ["tab raw", "/\t/evil.test"],
  ["leading space", " //evil.test"],
  ["scheme without slashes", "https:evil.test"],
  ["absolute URL to another origin", "https://evil.test/"],
  ["absolute URL, upper case", "HTTPS://EVIL.TEST"],
  ["javascript: URL", "javascript:alert(document.domain)"],
  ["javascript: URL with leading whitespace", fromQuery("%20javascript:alert(1)")],
  ["data: URL", "data:text/html,<script>alert(1)</script>"],
  ["userinfo trick", "//127.0.0.1:3000@evil.test"],
  ["encoded slashes in the path", "/%2F%2Fevil.test"],
  ["encoded slashes, encoded twice", fromQuery("%252F%252Fevil.test")],
  ["encoded slashes after a slash, encoded twice", fromQuery("%2F%252F%252Fevil.test")],
  ["encoded backslash in the path", "/%5Cevil.test"],
  ["encoded tab in the path", "/%09/evil.test"],
  ["dot segments collapsing to //", "/a/..//evil.test"],
  ["dot segments, encoded", "/a/%2e%2e//evil.test"],
  ["NUL byte", "/\u0000/evil.test"],
  ["C1 control", "/\u0085/evil.test"],
];

describe("safeNext: where sign-in sends you afterwards", () => {
  for (const [name, value] of BYPASSES)
    it(`[auth] refuses ${name}: ${JSON.stringify(value)}`, () => {
      expect(safeNext(value)).toBe("/");
    });

  it("[auth] whatever it returns stays on the app's origin, also for every bypass", () => {
    for (const [, value] of BYPASSES) expect(landsOn(safeNext(value))).toBe("http://127.0.0.1:3000");
  });

  it("[auth] keeps same-origin paths with their query and fragment", () => {
    expect(safeNext("/audit")).toBe("/audit");
    expect(safeNext(fromQuery("%2Fevents%3Fsource%3Dstripe%26status%3Ddead"))).toBe(
      "/events?source=stripe&status=dead",
    );
    expect(safeNext("/events/stripe/evt_1#attempts")).toBe("/events/stripe/evt_1#attempts");
    expect(safeNext("/replays?q=a%2F%2Fb")).toBe("/replays?q=a%2F%2Fb");
  });

  it("[auth] no value, an empty or repeated parameter, or a huge one goes to the overview", () => {
    expect(safeNext(undefined)).toBe("/");
    expect(safeNext("")).toBe("/");
    expect(safeNext(["/audit", "//evil.test"])).toBe("/");
    expect(safeNext(`/${"a".repeat(5000)}`)).toBe("/");
  });

  it("[auth] signInPath round-trips a path and query through safeNext; the overview needs no next", () => {
    expect(signInPath("/")).toBe("/sign-in");
    const back = signInPath("/events?status=dead&q=a b");
    expect(back).toBe("/sign-in?next=%2Fevents%3Fstatus%3Ddead%26q%3Da%20b");
    expect(safeNext(new URL(back, "http://x").searchParams.get("next"))).toBe("/events?status=dead&q=a%20b");
  });
});
