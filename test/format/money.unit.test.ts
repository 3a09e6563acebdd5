import { describe, expect, it } from "vitest";
import { formatMajor, formatMinor } from "@/lib/format/money";

describe("money as a person reads it", () => {
  it("[format] minor units are shown in the currency's units with its code: cents, yen, fils", () => {
    expect(formatMinor(2000, "usd")).toBe("20.00 USD");
    expect(formatMinor(6000, "USD")).toBe("60.00 USD");
    expect(formatMinor(123456, "eur")).toBe("1,234.56 EUR");
    expect(formatMinor(500, "jpy")).toBe("500 JPY");
    expect(formatMinor(1234, "bhd")).toBe("1.234 BHD");
    expect(formatMinor(-250, "usd")).toBe("-2.50 USD");
    expect(formatMinor(5, "usd")).toBe("0.05 USD");
    // Exact past what a float's division would keep.
    expect(formatMinor(9_007_199_254_740_993n, "usd")).toBe("90,071,992,547,409.93 USD");
  });

  it("[format] an amount already in units (Shopify's total_price) gets the currency's digits and its code", () => {
    expect(formatMajor("49.5", "usd")).toBe("49.50 USD");
    expect(formatMajor("1000", "JPY")).toBe("1,000 JPY");
    expect(formatMajor("12.345", "bhd")).toBe("12.345 BHD");
  });

  it("[format] a code that is no currency says its amount is in minor units rather than guessing", () => {
    expect(formatMinor(4000, "dollars")).toBe("4,000 (minor units of dollars)");
    expect(formatMajor("nope", "usd")).toBe("nope USD");
  });
});
