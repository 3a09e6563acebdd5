/**
 * ISO 8601 → microseconds since the epoch, keeping sub-millisecond digits that Date.parse drops
 * (Paddle's occurred_at has six). Undefined when the text is not a timestamp with a zone.
 */
export function isoToMicros(value: unknown): number | undefined {
  if (typeof value !== "string") return undefined;
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:?\d{2})$/i.exec(value);
  if (!m) return undefined;
  const [, base, fraction = "", zone] = m;
  const seconds = Date.parse(`${base}${zone}`);
  if (Number.isNaN(seconds)) return undefined;
  const micros = Number((fraction + "000000").slice(0, 6));
  return seconds * 1000 + micros;
}
