import { EVENT_STATUSES, type EventStatus } from "@/lib/console/statuses";

export interface ShownCounts {
  counts: Record<EventStatus, number>;
  /** Statuses whose count is an estimate (shown with ≈). */
  estimated: ReadonlySet<EventStatus>;
}

const isStatus = (v: unknown): v is EventStatus => EVENT_STATUSES.includes(v as EventStatus);

/**
 * The status counts as the overview shows them. getStatusCounts may mark any count as estimated (a count
 * that grows with the table is not scanned): as `settledApproximate`, an `estimated` flag, list or map, or a
 * count given as `{ n | count | value, estimated }`. Read every shape rather than trust one.
 */
export function shownCounts(result: object): ShownCounts {
  const r = result as Record<string, unknown>;
  const raw = (typeof r.counts === "object" && r.counts !== null ? r.counts : {}) as Record<string, unknown>;
  const estimated = new Set<EventStatus>();
  const counts = Object.fromEntries(EVENT_STATUSES.map((s) => [s, 0])) as Record<EventStatus, number>;
  for (const status of EVENT_STATUSES) {
    const v = raw[status];
    if (typeof v === "number") counts[status] = v;
    else if (typeof v === "object" && v !== null) {
      const o = v as Record<string, unknown>;
      const n = [o.n, o.count, o.value].find((x) => typeof x === "number");
      counts[status] = typeof n === "number" ? n : 0;
      if (o.estimated === true || o.approximate === true) estimated.add(status);
    }
  }
  if (r.settledApproximate === true || r.settledEstimated === true) estimated.add("settled");
  const flag = r.estimated ?? r.approximate;
  if (flag === true) estimated.add("settled");
  else if (Array.isArray(flag)) {
    for (const s of flag) if (isStatus(s)) estimated.add(s);
  } else if (typeof flag === "object" && flag !== null) {
    for (const [s, on] of Object.entries(flag)) if (on === true && isStatus(s)) estimated.add(s);
  }
  return { counts, estimated };
}
