/**
 * The headers every response Next answers carries: next.config.ts headers() (every path, static assets
 * included) and the proxy (every page, with the per-request CSP below). The node:http webhook adapter
 * (lib/receiver/node.ts) bypasses Next and sets only nosniff on its JSON answers.
 *
 * Referrer-Policy is strict-origin-when-cross-origin rather than no-referrer: under no-referrer a
 * browser sends `Origin: null` on same-origin form posts, which the auth API's and server actions'
 * origin checks refuse. Cross-origin, only the origin leaves (never a URL with an id or a search in it).
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "strict-origin-when-cross-origin",
};

/** 16 random bytes, base64: what Next looks for as 'nonce-…' in the request's CSP (script-src). */
export function createNonce(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return btoa(String.fromCharCode(...bytes));
}

/**
 * A strict, nonce-based policy for the console's pages. Next reads the nonce from the request's
 * Content-Security-Policy header (set by proxy.ts) and puts it on its own scripts, so the pages must be
 * rendered per request. 'strict-dynamic' lets those scripts load the rest of the app's chunks; nothing
 * inline runs without the nonce, and no other origin may frame a page (frame-ancestors, and
 * X-Frame-Options for older browsers).
 *
 * style-src-attr 'unsafe-inline': React renders `style={…}` props as style attributes, which a nonce
 * cannot cover. An attribute styles only its element and can load nothing (img-src, font-src are 'self').
 * In development React's debugging needs eval, and the dev overlay injects unnonced styles.
 */
export function contentSecurityPolicy(opts: { nonce: string; dev?: boolean; https?: boolean }): string {
  const { nonce, dev = false, https = false } = opts;
  const directives = [
    // First: Next takes the nonce from the first directive starting with "script-src".
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${dev ? " 'unsafe-eval'" : ""}`,
    "default-src 'self'",
    dev ? "style-src 'self' 'unsafe-inline'" : `style-src 'self' 'nonce-${nonce}'`,
    "style-src-attr 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-src 'none'",
    "frame-ancestors 'none'",
    ...(https ? ["upgrade-insecure-requests"] : []),
  ];
  return directives.join("; ");
}
