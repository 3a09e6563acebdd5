import { getSessionCookie } from "better-auth/cookies";
import { NextResponse, type NextRequest } from "next/server";
import { getEnv } from "@/lib/env";
import { urlProblem } from "@/lib/ledger/params";
import { signInPath } from "@/app/sign-in/safe-next";
import { contentSecurityPolicy, createNonce, SECURITY_HEADERS } from "@/lib/server/security-headers";

/** Open without a session: the auth API, health, sign-in and first-admin setup. Everything else is the console. */
const PUBLIC = ["/api/auth", "/api/health", "/sign-in", "/setup"];
const isPublic = (pathname: string) => PUBLIC.some((p) => pathname === p || pathname.startsWith(`${p}/`));

function policyFor(nonce: string): string {
  const env = getEnv();
  return contentSecurityPolicy({
    nonce,
    dev: env.NODE_ENV === "development",
    https: env.APP_URL?.startsWith("https:") ?? false,
  });
}

function withSecurityHeaders(response: NextResponse, csp: string): NextResponse {
  response.headers.set("content-security-policy", csp);
  for (const [k, v] of Object.entries(SECURITY_HEADERS)) response.headers.set(k, v);
  return response;
}

/**
 * Every page and route but the webhook endpoint and static assets passes here:
 * - a URL no page can mean (an escape that is not UTF-8, an encoded NUL) answers 400 here, before a
 *   page hands it to the database;
 * - each response gets a fresh CSP nonce, also set on the request, where Next reads it for its scripts;
 * - a fast, optimistic gate: no session cookie → /sign-in, remembering where the person was going.
 *   Pages and actions still validate the session and role on the server; this only saves a render.
 */
export function proxy(request: NextRequest) {
  const nonce = createNonce();
  const csp = policyFor(nonce);
  const { pathname, search } = request.nextUrl;
  // The URL as sent: nextUrl may already be normalised, and a malformed escape must be seen as it came.
  const sent = new URL(request.url);
  const problem = urlProblem(sent.pathname, sent.search);
  if (problem)
    return withSecurityHeaders(
      new NextResponse(`Bad request: ${problem}.\n`, {
        status: 400,
        headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" },
      }),
      csp,
    );
  if (isPublic(pathname) || getSessionCookie(request, { cookiePrefix: "ledger" })) {
    const headers = new Headers(request.headers);
    headers.set("content-security-policy", csp);
    headers.set("x-nonce", nonce);
    // The address asked for: the console's 404 page names it (components/not-found-view.tsx), and a session that
    // has ended while its cookie is still sent goes to sign-in and back to it (app/(console)/layout.tsx).
    headers.set("x-return-to", `${pathname}${search}`);
    return withSecurityHeaders(NextResponse.next({ request: { headers } }), csp);
  }
  return withSecurityHeaders(NextResponse.redirect(new URL(signInPath(`${pathname}${search}`), request.url)), csp);
}

export const config = {
  // Everything but the webhook endpoint (answered on node:http by server.ts, with its own headers) and
  // static assets (next.config.ts headers() covers those): the CSP must reach /sign-in and /setup too.
  matcher: ["/((?!api/webhooks|_next/static|_next/image|favicon.ico|icon.svg).*)"],
};
