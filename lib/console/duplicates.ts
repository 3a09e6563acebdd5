import { sql } from "drizzle-orm";
import { arrivalsSql, duplicateArrivalsSql } from "@/db/delivery-arrivals";
import { rowsOf, type Db } from "@/db/client";

export interface DuplicateRow {
  source: string;
  eventType: string;
  deliveries: number;
  duplicates: number;
  /** Duplicates that CLAIM_MODE=shadow processed again: each one is work enforce mode would skip. */
  reprocessed: number;
  rate: number;
}

/** Duplicate rate per source and type over [since, until): the number to read before switching shadow → enforce. */
export async function duplicateReport(db: Db, window: { since: Date; until: Date }): Promise<DuplicateRow[]> {
  const rows = rowsOf<{
    source: string;
    event_type: string;
    deliveries: number;
    duplicates: number;
    reprocessed: number;
  }>(
    await db.execute(sql`
      select d.source, coalesce(e.event_type, '?') as event_type, ${arrivalsSql("d")}::int as deliveries,
             ${duplicateArrivalsSql("d")}::int as duplicates,
             count(*) filter (where d.reprocessed)::int as reprocessed
      from webhook_delivery d
      left join webhook_event e on e.source = d.source and e.event_id = d.event_id
      where d.received_at >= ${window.since.toISOString()}::timestamptz and d.received_at < ${window.until.toISOString()}::timestamptz
      group by 1, 2
      order by 4 desc, 1, 2`),
  );
  return rows.map((r) => ({
    source: r.source,
    eventType: r.event_type,
    deliveries: r.deliveries,
    duplicates: r.duplicates,
    reprocessed: r.reprocessed,
    rate: r.deliveries === 0 ? 0 : r.duplicates / r.deliveries,
  }));
}

/** `24h`, `90m`, `7d` before `now`, or an ISO timestamp. */
export function parseSince(value: string, now = new Date()): Date {
  const m = /^(\d+)([mhd])$/.exec(value);
  if (m) {
    const unit = { m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as "m" | "h" | "d"];
    return new Date(now.getTime() - Number(m[1]) * unit);
  }
  const t = Date.parse(value);
  if (Number.isNaN(t)) throw new Error(`--since wants 24h, 90m, 7d or an ISO time, not "${value}"`);
  return new Date(t);
}

export function formatDuplicateReport(rows: readonly DuplicateRow[], window: { since: Date; until: Date }): string {
  const head = `duplicates ${window.since.toISOString()} → ${window.until.toISOString()}`;
  if (rows.length === 0) return `${head}\nno deliveries in this window`;
  const table = [["source", "type", "deliveries", "duplicates", "rate", "reprocessed (shadow)"]];
  let total = 0;
  let dups = 0;
  for (const r of rows) {
    total += r.deliveries;
    dups += r.duplicates;
    table.push([
      r.source,
      r.eventType,
      String(r.deliveries),
      String(r.duplicates),
      `${(r.rate * 100).toFixed(2)} %`,
      String(r.reprocessed),
    ]);
  }
  table.push(["all", "", String(total), String(dups), `${((dups / total) * 100).toFixed(2)} %`, ""]);
  const widths = table[0]!.map((_, c) => Math.max(...table.map((row) => row[c]!.length)));
  return [
    head,
    ...table.map((row) =>
      row.map((cell, c) => (c >= 2 ? cell.padStart(widths[c]!) : cell.padEnd(widths[c]!))).join("  "),
    ),
  ].join("\n");
}
