/**
 * ISO 8601 → microseconds since the epoch, keeping sub-millisecond digits that Date.parse drops
 * (Paddle's occurred_at has six). Undefined when the text is not a timestamp with a zone.
 */
export function isoToMicros(value: unknown): number | undefined {
  if (typeof value !== "string") return undefined;
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:?\d{2})$/i.exec(value);
  if (!m) return undefined;
  const [, base = "", fraction = "", zone] = m;
  // Date.parse rolls an impossible day over (Feb 30 → Mar 1): refuse it rather than invent a version.
  const [year = 0, month = 0, day = 0] = base.slice(0, 10).split("-").map(Number);
  if (day < 1 || day > new Date(Date.UTC(year, month, 0)).getUTCDate()) return undefined;
  const millis = Date.parse(`${base}${zone}`);
  if (Number.isNaN(millis)) return undefined;
  const micros = Number((fraction + "000000").slice(0, 6));
  return millis * 1000 + micros;
}
