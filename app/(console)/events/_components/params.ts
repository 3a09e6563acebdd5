import { EVENT_SORTS, type EventSort } from "@/lib/console/list-events";

export type SearchParams = Record<string, string | string[] | undefined>;

/** URL keys the events view owns; everything it shows can be shared as a link. */
export const FILTER_KEYS = ["q", "source", "type", "status", "from", "to", "test"] as const;

export function filterFromParams(sp: SearchParams) {
  const pick = (k: string) => sp[k];
  return {
    q: one(pick("q")),
    source: pick("source"),
    type: pick("type"),
    status: pick("status"),
    from: one(pick("from")),
    to: one(pick("to")),
    test: one(pick("test")),
  };
}

export function sortFromParams(sp: SearchParams): EventSort {
  const s = one(sp.sort);
  return EVENT_SORTS.find((x) => x === s) ?? "received_desc";
}

export function one(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

/** The current view's URL with some keys replaced (undefined removes a key); paging keys reset unless given. */
export function viewHref(sp: SearchParams, changes: Record<string, string | undefined>): string {
  const out = new URLSearchParams();
  for (const [k, v] of Object.entries(sp)) {
    if (k === "cursor" || k === "back" || k in changes || v === undefined) continue;
    for (const x of Array.isArray(v) ? v : [v]) if (x !== "") out.append(k, x);
  }
  for (const [k, v] of Object.entries(changes)) if (v !== undefined && v !== "") out.set(k, v);
  const qs = out.toString();
  return qs ? `/events?${qs}` : "/events";
}
