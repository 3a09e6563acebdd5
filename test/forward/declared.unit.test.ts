import { describe, expect, it } from "vitest";
import { declaredDestinations, destinationMatches, typeMatches } from "@/lib/forward/destinations";

const SECRET = `whsec_${Buffer.alloc(32, 7).toString("base64")}`;
const load = (entries: unknown, env: Record<string, string> = { BILLING_DEST_SECRET: SECRET }) =>
  declaredDestinations("/etc/ledger/destinations.json", {
    envVar: (n) => env[n],
    readFile: () => (typeof entries === "string" ? entries : JSON.stringify(entries)),
  });

const billing = {
  name: "billing",
  url: "https://billing.internal/hooks/ledger",
  secretEnv: "BILLING_DEST_SECRET",
  sources: ["stripe", "paddle"],
  types: ["customer.subscription.*", "invoice.paid"],
  mode: "newest",
  format: "standard",
  maxInFlight: 10,
  timeoutMs: 5000,
};

describe("DESTINATIONS_FILE", () => {
  it("reads the issue's example with its defaults", () => {
    const [d] = load([billing]);
    expect(d).toMatchObject({ name: "billing", mode: "newest", state: "active", maxAttempts: 10 });
    const [minimal] = load([{ name: "ops", url: "http://ops.internal/", secretEnv: "BILLING_DEST_SECRET" }]);
    expect(minimal).toMatchObject({ mode: "every", format: "standard", maxInFlight: 10, timeoutMs: 5000 });
  });

  it.each([
    ["{", /not valid JSON/],
    [{ name: "x" }, /must be a JSON array/],
    [[{ ...billing, url: "ftp://billing/" }], /entry 1 \("billing"\): url: an http:\/\/ or https:\/\/ URL/],
    [[{ ...billing, mode: "latest" }], /entry 1 \("billing"\): mode:/],
    [[billing, billing], /entry 2 \("billing"\): name "billing" is declared twice/],
    [[{ ...billing, secretEnv: "NOT_SET" }], /entry 1 \("billing"\): NOT_SET is not set/],
    [[{ ...billing, extra: 1 }], /entry 1 \("billing"\): entry: Unrecognized key/],
  ])("refuses %j, naming the entry and field", (entries, message) => {
    expect(() => load(entries)).toThrow(message);
  });

  it("refuses a secret that is no Standard Webhooks secret, by position, never by value", () => {
    expect(() => load([billing], { BILLING_DEST_SECRET: `${SECRET},hunter2` })).toThrow(
      /BILLING_DEST_SECRET, secret 2 of 2: must be a Standard Webhooks secret/,
    );
    expect(() => load([billing], { BILLING_DEST_SECRET: "hunter2" })).not.toThrow(/hunter2/);
  });

  it("matches types exactly or by * glob, and sources by slug", () => {
    expect(typeMatches("customer.subscription.*", "customer.subscription.updated")).toBe(true);
    expect(typeMatches("customer.subscription.*", "customer.created")).toBe(false);
    expect(typeMatches("*.paid", "invoice.paid")).toBe(true);
    expect(typeMatches("orders/*", "orders/create")).toBe(true);
    expect(typeMatches("invoice.paid", "invoice.paid_out")).toBe(false);
    expect(typeMatches("a*b*c", "abc")).toBe(true);
    expect(typeMatches("a*b*c", "acb")).toBe(false);
    expect(destinationMatches({ sources: ["stripe"], types: null }, "paddle", "x")).toBe(false);
    expect(destinationMatches({ sources: null, types: null }, "paddle", "x")).toBe(true);
  });
});
