/** `/api/webhooks/{slug}`, an optional trailing slash, then the end, a query or a fragment. */
const PLAIN = /^\/api\/webhooks\/([A-Za-z0-9_-]+)\/?(?:$|[?#])/;

/**
 * The source segment, still percent-encoded, of a request-target that names app/api/webhooks/[source],
 * however it is spelled; undefined for any other path. Resolved as Next resolves a path before routing:
 * backslashes and repeated slashes collapsed (Next answers them with a 308 to that path), dot segments
 * removed by WHATWG URL (`%2e` is a dot there), one trailing slash dropped. Escapes in `api` and `webhooks`
 * are decoded too: this may match a spelling Next would not route, never miss one it would.
 */
export function webhookSegment(target: string): string | undefined {
  // The spelling providers send, which every resolution below leaves as it is: answered without a URL parse.
  const plain = PLAIN.exec(target);
  if (plain) return plain[1];
  if (!target.startsWith("/")) return undefined; // origin-form only: Next redirects an absolute-form target
  const end = target.search(/[?#]/);
  const path = (end === -1 ? target : target.slice(0, end)).replace(/[\\/]+/g, "/");
  let parts: string[];
  try {
    parts = new URL(path, "http://n").pathname.split("/");
  } catch {
    return undefined;
  }
  if (parts.at(-1) === "") parts.pop();
  const [root, api, webhooks, segment] = parts;
  if (parts.length !== 4 || root !== "" || !segment) return undefined;
  return decoded(api) === "api" && decoded(webhooks) === "webhooks" ? segment : undefined;
}

function decoded(segment: string | undefined): string | undefined {
  try {
    return segment === undefined ? undefined : decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}
