import { getScriptNonceFromHeader } from "next/dist/server/app-render/get-script-nonce-from-header";
import { NextRequest } from "next/server";
import { describe, expect, it } from "vitest";
import nextConfig from "@/next.config";
import { config, proxy } from "@/proxy";
import { contentSecurityPolicy } from "@/lib/server/security-headers";

// proxy.ts is Next's middleware: these run it on NextRequest objects, as Next does for every page.
const BASE = "http://127.0.0.1:3000";
const signedIn = { cookie: "ledger.session_token=some-token" };
const run = (path: string, headers: Record<string, string> = {}) =>
  proxy(new NextRequest(`${BASE}${path}`, { headers }));

function directives(csp: string): Map<string, string[]> {
  return new Map(
    csp
      .split(";")
      .map((d) => d.trim().split(/\s+/))
      .filter((d) => d[0])
      .map(([name, ...values]) => [name!, values]),
  );
}

function expectFramingAndSniffingHeaders(res: Response) {
  expect(res.headers.get("x-frame-options")).toBe("DENY");
  expect(res.headers.get("x-content-type-options")).toBe("nosniff");
  expect(res.headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
  const csp = directives(res.headers.get("content-security-policy") ?? "");
  expect(csp.get("frame-ancestors")).toEqual(["'none'"]);
}

describe("proxy: Content-Security-Policy with a per-request nonce", () => {
  it("[security] a console page gets a strict nonce-based CSP, on the response and on the request Next renders from", () => {
    const res = run("/users", signedIn);
    expect(res.status).toBe(200);
    expect(res.headers.get("location")).toBeNull();
    const csp = res.headers.get("content-security-policy")!;
    const d = directives(csp);
    const script = d.get("script-src")!;
    const nonce = getScriptNonceFromHeader(csp);
    expect(nonce).toMatch(/^[A-Za-z0-9+/]{22}==$/);
    expect(script).toEqual(["'self'", `'nonce-${nonce}'`, "'strict-dynamic'"]);
    expect(script).not.toContain("'unsafe-inline'");
    expect(script).not.toContain("'unsafe-eval'");
    expect(d.get("style-src")).toEqual(["'self'", `'nonce-${nonce}'`]);
    expect(d.get("object-src")).toEqual(["'none'"]);
    expect(d.get("base-uri")).toEqual(["'none'"]);
    expect(d.get("default-src")).toEqual(["'self'"]);
    expectFramingAndSniffingHeaders(res);
    // NextResponse.next({ request: { headers } }): Next overrides the request's headers with these before rendering.
    expect(res.headers.get("x-middleware-override-headers")?.split(",")).toEqual(
      expect.arrayContaining(["content-security-policy", "x-nonce"]),
    );
    expect(res.headers.get("x-middleware-request-content-security-policy")).toBe(csp);
    expect(res.headers.get("x-middleware-request-x-nonce")).toBe(nonce);
  });

  it("[security] every request gets a fresh nonce", () => {
    const nonces = new Set(
      Array.from({ length: 50 }, () =>
        getScriptNonceFromHeader(run("/events", signedIn).headers.get("content-security-policy")!),
      ),
    );
    expect(nonces.size).toBe(50);
  });

  it("[security] /sign-in, /setup and the auth API get the headers too, without being sent to sign in", () => {
    for (const path of [
      "/sign-in",
      "/sign-in?next=%2Fusers",
      "/setup?token=abc",
      "/api/auth/get-session",
      "/api/health",
    ]) {
      const res = run(path);
      expect([path, res.status, res.headers.get("location")]).toEqual([path, 200, null]);
      expectFramingAndSniffingHeaders(res);
      expect(res.headers.get("x-middleware-request-content-security-policy")).toBe(
        res.headers.get("content-security-policy"),
      );
    }
  });

  it("[security] the sign-in redirect carries them as well", () => {
    const res = run("/users");
    expect(res.status).toBe(307);
    const location = new URL(res.headers.get("location")!);
    expect(`${location.pathname}${location.search}`).toBe("/sign-in?next=%2Fusers");
    expectFramingAndSniffingHeaders(res);
  });

  it("[security] the matcher covers every page, /sign-in and /setup included; only the webhook path and static assets skip it", () => {
    const matchers = config.matcher.map((m) => new RegExp(`^${m}$`));
    const matched = (p: string) => matchers.some((r) => r.test(p));
    for (const p of [
      "/",
      "/users",
      "/events",
      "/events/stripe/evt_1",
      "/events/stripe/evt_1/export",
      "/sign-in",
      "/setup",
      "/account",
      "/api/auth/sign-in/email",
      "/nope",
    ])
      expect([p, matched(p)]).toEqual([p, true]);
    for (const p of ["/_next/static/chunks/app.js", "/_next/image", "/favicon.ico", "/api/webhooks/stripe"])
      expect([p, matched(p)]).toEqual([p, false]);
  });

  it("[security] the policy upgrades insecure requests behind https, and allows eval only in development", () => {
    expect(directives(contentSecurityPolicy({ nonce: "abc", https: true })).has("upgrade-insecure-requests")).toBe(
      true,
    );
    expect(directives(contentSecurityPolicy({ nonce: "abc" })).has("upgrade-insecure-requests")).toBe(false);
    expect(directives(contentSecurityPolicy({ nonce: "abc", dev: true })).get("script-src")).toContain("'unsafe-eval'");
  });

  it("[security] next.config.ts sends the framing and sniffing headers on every path, static assets included", async () => {
    const rules = (await nextConfig.headers?.()) ?? [];
    const all = rules.find((r) => r.source === "/:path*");
    const headers = Object.fromEntries((all?.headers ?? []).map((h) => [h.key.toLowerCase(), h.value]));
    expect(headers).toMatchObject({
      "x-frame-options": "DENY",
      "x-content-type-options": "nosniff",
      "referrer-policy": "strict-origin-when-cross-origin",
    });
  });
});

describe("proxy: URLs no page can mean", () => {
  it("[security] an invalid UTF-8 escape or an encoded NUL in a path segment or the query answers 400 with the reason", async () => {
    const cases: [string, RegExp][] = [
      ["/events/%ff/x", /path segment is not valid percent-encoded UTF-8/],
      ["/events/stripe/%00", /path segment contains U\+0000/],
      ["/entities/stripe/customer/cus%00", /path segment contains U\+0000/],
      ["/events?q=%00", /query string contains U\+0000/],
      ["/events?type=%ff", /query string is not valid percent-encoded UTF-8/],
      ["/events?q=100%", /query string is not valid percent-encoded UTF-8/],
    ];
    for (const [path, reason] of cases) {
      const res = run(path, signedIn);
      expect([path, res.status]).toEqual([path, 400]);
      expect(await res.text()).toMatch(reason);
      expectFramingAndSniffingHeaders(res);
    }
  });

  it("[security] well-formed escapes pass", () => {
    for (const path of [
      "/events?q=caf%C3%A9",
      "/events?q=a+b&type=customer.subscription.updated",
      "/events/stripe/evt_%E2%9C%93",
      "/events/github/abc%2Fdef",
    ])
      expect([path, run(path, signedIn).status]).toEqual([path, 200]);
  });
});
