const CODE = /^[A-Za-z]{3}$/;

/** The currency's minor-unit digits (USD 2, JPY 0, BHD 3), from the runtime's ISO 4217 data; undefined: no code. */
export function currencyDigits(currency: string): number | undefined {
  if (!CODE.test(currency)) return undefined;
  const format = new Intl.NumberFormat("en", { style: "currency", currency: currency.toUpperCase() });
  return format.resolvedOptions().maximumFractionDigits ?? 2;
}

// Formatting a decimal string (not a float) keeps every digit of a large amount exact.
const grouped = (decimal: string, digits: number) =>
  new Intl.NumberFormat("en", { minimumFractionDigits: digits, maximumFractionDigits: digits }).format(
    decimal as `${number}`,
  );

/** Minor units as an exact decimal in the currency's units: 2000 USD → "20.00", 500 JPY → "500"; undefined: no code. */
export function minorToDecimal(minor: number | bigint, currency: string): string | undefined {
  const digits = currencyDigits(currency);
  if (digits === undefined) return undefined;
  const abs = String(minor)
    .replace(/^-/, "")
    .padStart(digits + 1, "0");
  const sign = String(minor).startsWith("-") ? "-" : "";
  return sign + (digits === 0 ? abs : `${abs.slice(0, -digits)}.${abs.slice(-digits)}`);
}

/**
 * An amount in minor units (Stripe's `amount_paid: 2000`) as a person reads it: "20.00 USD", "500 JPY",
 * "1.234 BHD". A code that is no currency is not guessed at: the number is said to be in minor units.
 */
export function formatMinor(minor: number | bigint, currency: string): string {
  const decimal = minorToDecimal(minor, currency);
  if (decimal === undefined) return `${grouped(String(minor), 0)} (minor units of ${currency})`;
  return `${grouped(decimal, currencyDigits(currency)!)} ${currency.toUpperCase()}`;
}

/** An amount already in units (Shopify's `total_price: "49.5"`) with the currency's digits and its code. */
export function formatMajor(decimal: string, currency: string): string {
  const digits = currencyDigits(currency);
  const code = CODE.test(currency) ? currency.toUpperCase() : currency;
  if (digits === undefined || !/^-?\d{1,20}(\.\d{1,10})?$/.test(decimal)) return `${decimal} ${code}`;
  return `${grouped(decimal, digits)} ${code}`;
}
