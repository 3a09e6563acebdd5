export type SearchParams = Record<string, string | string[] | undefined>;

/** URL keys the audit view owns: the filters, then the keyset position. */
export const FILTER_KEYS = ["actor", "action", "result", "from", "to"] as const;
const PAGE_KEYS = ["before", "after"] as const;
export type AuditFilterKey = (typeof FILTER_KEYS)[number];

/** An audit row's result in words, for the filter menu and the badges. */
export const OUTCOME_WORDS = { ok: "Succeeded", refused: "Refused", error: "Failed" } as const;

export const one = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v);

/** The filters as given, empty ones dropped. */
export function filtersOf(sp: SearchParams): Partial<Record<AuditFilterKey, string>> {
  const out: Partial<Record<AuditFilterKey, string>> = {};
  for (const key of FILTER_KEYS) {
    const value = one(sp[key])?.trim();
    if (value) out[key] = value;
  }
  return out;
}

/** /audit with these filters and at most one page key; empty values never reach the URL. */
export function auditHref(
  filters: Partial<Record<AuditFilterKey, string>>,
  page?: { before?: string; after?: string },
): string {
  const qs = new URLSearchParams();
  for (const key of FILTER_KEYS) {
    const value = filters[key];
    if (value) qs.set(key, value);
  }
  for (const key of PAGE_KEYS) {
    const value = page?.[key];
    if (value) qs.set(key, value);
  }
  const s = qs.toString();
  return s ? `/audit?${s}` : "/audit";
}

/**
 * The canonical URL for these parameters when the request's differs (an empty field a plain form sent,
 * an unknown key, both page keys), so every view has one clean address; undefined when it already is.
 */
export function cleanHref(sp: SearchParams): string | undefined {
  const before = one(sp.before)?.trim() || undefined;
  const after = one(sp.after)?.trim() || undefined;
  const clean = auditHref(filtersOf(sp), after ? { after } : { before });
  const current = new URLSearchParams();
  for (const [k, v] of Object.entries(sp))
    for (const x of Array.isArray(v) ? v : v === undefined ? [] : [v]) current.append(k, x);
  const s = current.toString();
  return (s ? `/audit?${s}` : "/audit") === clean ? undefined : clean;
}
