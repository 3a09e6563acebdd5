export type SearchParams = Record<string, string | string[] | undefined>;

/** The keys /failures owns: which groups are shown, and where the dead list is paged to. */
const KEYS = ["groups", "cursor", "back"] as const;
type Key = (typeof KEYS)[number];

export function one(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

/** This view's URL with some keys replaced (undefined removes one); a new cursor drops the old direction. */
export function failuresHref(sp: SearchParams, changes: Partial<Record<Key, string | undefined>>): string {
  const out = new URLSearchParams();
  for (const k of KEYS) {
    if (k in changes || (k === "back" && "cursor" in changes)) continue;
    const v = one(sp[k]);
    if (v) out.set(k, v);
  }
  for (const [k, v] of Object.entries(changes)) if (v) out.set(k, v);
  const qs = out.toString();
  return qs ? `/failures?${qs}` : "/failures";
}

/** The events list filtered to one group's source, type and status. */
export function groupEventsHref(g: { source: string; eventType: string }, status: "dead" | "failed"): string {
  return `/events?${new URLSearchParams({ source: g.source, type: g.eventType, status }).toString()}`;
}
