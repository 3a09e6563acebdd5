/**
 * Where sign-in sends you afterwards: only a path on this site, or "/". `next` comes from the query, so
 * anyone can craft it; a string check alone let `/\t/evil.test` through (browsers strip tab, CR and LF
 * inside URLs, leaving `//evil.test`). So the decision is made by the URL parser, as a browser would:
 * resolve against a reference origin and keep the result only if it stayed there. A reference origin
 * rather than the app's own: the answer is a path, so any value that can leave one origin is refused,
 * and this runs the same on the server and in the browser.
 */
const REFERENCE_ORIGIN = "https://ledger.invalid";
const MAX_LENGTH = 2048;
// C0/C1 controls (browsers drop some of them inside URLs) and backslashes (read as "/" in http URLs).
const UNSAFE_CHARS = /[\u0000-\u001f\u007f-\u009f\\]/;

export function safeNext(value: string | string[] | undefined | null): string {
  if (typeof value !== "string" || value.length > MAX_LENGTH || !isPlainPath(value)) return "/";
  let url: URL;
  try {
    url = new URL(value, REFERENCE_ORIGIN);
  } catch {
    return "/";
  }
  if (url.origin !== REFERENCE_ORIGIN) return "/";
  // Return what the parser made of it, and check that too: dot segments can collapse `/a/..//x` to `//x`.
  const path = `${url.pathname}${url.search}${url.hash}`;
  return isPlainPath(path) && isPlainPath(fullyDecoded(url.pathname)) ? path : "/";
}

/** One leading slash, no second one right after it, nothing a browser would drop or turn into a slash. */
function isPlainPath(value: string): boolean {
  return value.startsWith("/") && !value.startsWith("//") && !UNSAFE_CHARS.test(value);
}

/**
 * The path as a proxy or a later redirect might decode it (`/%2F%2Fevil`, `%252F` encoded twice);
 * undecodable text yields "" so it is refused.
 */
function fullyDecoded(pathname: string): string {
  let current = pathname;
  for (let i = 0; i < 4; i++) {
    let next: string;
    try {
      next = decodeURIComponent(current);
    } catch {
      return "";
    }
    if (next === current) return current;
    current = next;
  }
  return "";
}

/** The sign-in page's address that brings a person back to `next` (a path and query on this site) afterwards. */
export function signInPath(next: string): string {
  return next === "/" ? "/sign-in" : `/sign-in?next=${encodeURIComponent(next)}`;
}
