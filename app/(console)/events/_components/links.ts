// Shared by server pages and client tables, so no "use client" here.
export const eventHref = (r: { source: string; eventId: string }) =>
  `/events/${encodeURIComponent(r.source)}/${encodeURIComponent(r.eventId)}`;
export const entityHref = (source: string, type: string, id: string) =>
  `/entities/${encodeURIComponent(source)}/${encodeURIComponent(type)}/${encodeURIComponent(id)}`;

/**
 * A dynamic segment as the id it names. Next has handed page params over both encoded and decoded
 * across versions (vercel/next.js#64952); decoding once more is harmless for real provider ids.
 */
export function segment(value: string): string {
  if (!value.includes("%")) return value;
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
