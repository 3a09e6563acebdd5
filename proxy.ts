import { getSessionCookie } from "better-auth/cookies";
import { NextResponse, type NextRequest } from "next/server";

/**
 * A fast, optimistic gate: no session cookie → /sign-in, remembering where the person was going.
 * Pages and actions still validate the session and role on the server; this only saves a render.
 */
export function proxy(request: NextRequest) {
  if (getSessionCookie(request, { cookiePrefix: "ledger" })) return NextResponse.next();
  const url = request.nextUrl.clone();
  const next = `${request.nextUrl.pathname}${request.nextUrl.search}`;
  url.pathname = "/sign-in";
  url.search = next === "/" ? "" : `?next=${encodeURIComponent(next)}`;
  return NextResponse.redirect(url);
}

export const config = {
  // Public: the webhook endpoint, health, auth API, sign-in, first-admin setup, and static assets.
  matcher: ["/((?!api/webhooks|api/health|api/auth|sign-in|setup|_next/static|_next/image|favicon.ico).*)"],
};
