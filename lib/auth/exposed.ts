import type { BetterAuthPlugin } from "better-auth";

/**
 * The auth endpoints reachable over HTTP: exactly what the console's pages call (sign-in form,
 * sign-out button, session). Everything else better-auth and its admin plugin ship (admin/set-role,
 * admin/create-user, admin/impersonate-user, update-user, change-password, …) would change users
 * outside the app's audited verbs and their last-admin guard, so it answers 404. An allowlist rather
 * than `disabledPaths`, so endpoints a library upgrade adds stay closed too.
 */
export const EXPOSED_AUTH_PATHS: ReadonlySet<string> = new Set(["/sign-in/email", "/sign-out", "/get-session"]);

export const AUTH_BASE_PATH = "/api/auth";

/**
 * The exact path under the auth base path, compared as-is: the router 404s on any variant
 * (trailing or doubled slashes, other case), so no variant can reach a different endpoint.
 */
export function isExposedAuthPath(url: string, basePath = AUTH_BASE_PATH): boolean {
  let pathname: string;
  try {
    pathname = new URL(url).pathname;
  } catch {
    return false;
  }
  const base = basePath.replace(/\/+$/, "");
  return pathname.startsWith(`${base}/`) && EXPOSED_AUTH_PATHS.has(pathname.slice(base.length));
}

/** Enforces the allowlist inside better-auth's router, so every mount of the handler gets it. */
export function exposeOnlyConsoleEndpoints(): BetterAuthPlugin {
  return {
    id: "ledger-expose-only",
    onRequest: async (request, ctx) => {
      if (isExposedAuthPath(request.url, new URL(ctx.baseURL).pathname)) return;
      return { response: new Response("Not Found", { status: 404 }) };
    },
  };
}
