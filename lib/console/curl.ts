/**
 * Hop-by-hop and transport headers: they describe the connection the delivery came over, not the delivery,
 * and curl sets its own. The signature headers stay: with the same secret they re-verify locally.
 */
export const CURL_DROPPED_HEADERS: ReadonlySet<string> = new Set([
  "host",
  "content-length",
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authorization",
  "transfer-encoding",
  "te",
  "trailer",
  "upgrade",
  "expect",
  "http2-settings",
]);

export interface CurlInput {
  source: string;
  headers: Readonly<Record<string, string>>;
  /** The exact body as received: the signature covers these bytes, so it is sent unchanged. */
  rawBody: string;
  /** The app's origin (APP_URL, else the request's): where the command sends the delivery. */
  baseUrl: string;
  /** Said above the command, as shell comments (one per line). */
  comment?: string;
}

/** A POSIX shell word: single quotes keep everything literal; a single quote itself is closed, escaped, reopened. */
export function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/** A here-document delimiter that occurs nowhere in the body, so no line of the body can end it early. */
export function heredocDelimiter(body: string): string {
  let delimiter = "EOF";
  for (let i = 1; body.includes(delimiter); i++) delimiter = `EOF_LEDGER_${i}`;
  return delimiter;
}

/** `name: value` as curl's -H takes it; an empty value needs `name;` (curl reads `name:` as "remove it"). */
const headerArg = (name: string, value: string) => shellQuote(value === "" ? `${name};` : `${name}: ${value}`);

/**
 * A shell command (sh, bash, zsh) that sends this delivery again to the app's receiver: the stored headers, the
 * exact raw body. The body travels in a here-document with a quoted delimiter (nothing in it expands); a
 * here-document always ends with a newline the body may not have, so `head -c` passes exactly its bytes.
 */
export function curlCommand({ source, headers, rawBody, baseUrl, comment }: CurlInput): string {
  const url = `${baseUrl.replace(/\/+$/, "")}/api/webhooks/${encodeURIComponent(source)}`;
  const bytes = new TextEncoder().encode(rawBody).length;
  const delimiter = heredocDelimiter(rawBody);
  const said = comment ? comment.split(/\r?\n|\r/).map((line) => `# ${line}\n`) : [];
  const lines = [
    `head -c ${bytes} <<'${delimiter}' | curl -X POST ${shellQuote(url)}`,
    ...Object.entries(headers)
      .filter(([name]) => !CURL_DROPPED_HEADERS.has(name.toLowerCase()))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([name, value]) => `  -H ${headerArg(name, value)}`),
    "  --data-binary @-",
  ];
  return `${said.join("")}${lines.join(" \\\n")}\n${rawBody}\n${delimiter}\n`;
}
