/**
 * Every time the console shows is UTC, "2026-11-29 22:09:37" (".214" with `ms`): the same text on the
 * server and in the browser whatever the viewer's zone, and the zone the filters and forms take.
 */
export function utc(value: Date | string | null | undefined, opts: { ms?: boolean } = {}): string {
  if (value === null || value === undefined) return "—";
  return (typeof value === "string" ? new Date(value) : value)
    .toISOString()
    .slice(0, opts.ms ? 23 : 19)
    .replace("T", " ");
}
