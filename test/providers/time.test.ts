import { describe, expect, it } from "vitest";
import { isoToMicros } from "@/lib/providers/time";

// 2024-04-12T10:18:49Z is 1_712_917_129 s after the epoch.
const AT = 1_712_917_129_000_000;

describe("isoToMicros", () => {
  it("[time] Paddle's six fractional digits are kept to the microsecond", () => {
    expect(isoToMicros("2024-04-12T10:18:49.621022Z")).toBe(AT + 621_022);
  });

  it("[time] timestamps one microsecond apart convert one apart", () => {
    expect(isoToMicros("2024-04-12T10:18:49.621023Z")).toBe(AT + 621_023);
    expect(isoToMicros("2024-04-12T10:18:49.999999Z")).toBe(AT + 999_999);
    expect(isoToMicros("2024-04-12T10:18:50.000000Z")).toBe(AT + 1_000_000);
  });

  it("[time] a timestamp without fraction converts to whole seconds", () => {
    expect(isoToMicros("2024-04-12T10:18:49Z")).toBe(AT);
  });

  it("[time] shorter fractions are scaled, not read as microseconds", () => {
    expect(isoToMicros("2024-04-12T10:18:49.6Z")).toBe(AT + 600_000);
    expect(isoToMicros("2024-04-12T10:18:49.621Z")).toBe(AT + 621_000);
  });

  it("[time] digits beyond the microsecond are dropped", () => {
    expect(isoToMicros("2024-04-12T10:18:49.621022999Z")).toBe(AT + 621_022);
  });

  it("[time] offsets like -05:00, +05:30 and -0400 name the same instant as Z", () => {
    expect(isoToMicros("2024-04-12T05:18:49.621022-05:00")).toBe(AT + 621_022);
    expect(isoToMicros("2024-04-12T15:48:49.621022+05:30")).toBe(AT + 621_022);
    expect(isoToMicros("2024-04-12T06:18:49-0400")).toBe(AT);
    expect(isoToMicros("2024-04-12T10:18:49+00:00")).toBe(AT);
  });

  it("[time] an offset that crosses midnight moves the date too", () => {
    expect(isoToMicros("2024-04-11T23:18:49-11:00")).toBe(AT);
  });

  it("[time] a leap day converts in a leap year", () => {
    expect(isoToMicros("2024-02-29T12:00:00Z")).toBe(1_709_208_000_000_000);
  });

  it("[time] the result is a safe integer for present-day timestamps", () => {
    expect(Number.isSafeInteger(isoToMicros("2099-12-31T23:59:59.999999Z"))).toBe(true);
  });

  it.each([
    "",
    "garbage",
    "2024-04-12",
    "2024-04-12T10:18:49",
    "2024-04-12T10:18:49.621022",
    "2024-04-12 10:18:49Z",
    "2024-04-12T10:18Z",
    "2024-04-12T10:18:49.Z",
    "2024-04-12T10:18:49.1234567890Z",
    "2024-04-12T10:18:49+25:00",
    "2024-13-01T00:00:00Z",
    "2024-04-12T10:18:61Z",
    "2024-02-30T00:00:00Z",
    "2023-02-29T12:00:00Z",
    "2024-04-31T00:00:00Z",
    "2024-04-00T00:00:00Z",
    " 2024-04-12T10:18:49Z",
    "2024-04-12T10:18:49Z\n",
  ])("[time] %j is not a zoned timestamp and converts to undefined", (value) => {
    expect(isoToMicros(value)).toBeUndefined();
  });

  it.each([1712917129, 1712917129621022, null, undefined, {}, ["2024-04-12T10:18:49Z"], true])(
    "[time] a non-string %j converts to undefined",
    (value) => {
      expect(isoToMicros(value)).toBeUndefined();
    },
  );
});
