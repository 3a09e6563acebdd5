import type { DeliveryMinute } from "@/lib/ledger/overview";

const COLORS: Record<string, string> = {
  stripe: "#635bff",
  github: "#24292f",
  shopify: "#5e8e3e",
  paddle: "#e0a800",
  slack: "#e01e5a",
  standard: "#0b7285",
};
const W = 960;
const H = 160;
const BUCKET_MIN = 10;

/**
 * Deliveries per minute over the last 24 h, stacked by source, in 10-minute columns (the average
 * per minute within each). Pure SVG rendered on the server: no client code, no layout shift.
 */
export function DeliveryChart({ minutes, now, hours = 24 }: { minutes: DeliveryMinute[]; now: Date; hours?: number }) {
  const buckets = (hours * 60) / BUCKET_MIN;
  const start = Math.floor(now.getTime() / 60_000) - hours * 60 + 1;
  const sources = [...new Set(minutes.map((m) => m.source))].sort();
  const grid = Array.from({ length: buckets }, () => new Map<string, number>());
  for (const m of minutes) {
    const b = Math.floor((Math.floor(m.minute.getTime() / 60_000) - start) / BUCKET_MIN);
    const cell = grid[Math.min(Math.max(b, 0), buckets - 1)]!;
    cell.set(m.source, (cell.get(m.source) ?? 0) + m.deliveries / BUCKET_MIN);
  }
  const totals = grid.map((c) => [...c.values()].reduce((a, b) => a + b, 0));
  const peak = Math.max(...totals, 0);
  const scale = peak > 0 ? (H - 14) / peak : 0;
  const bw = W / buckets;
  const label = (b: number) => new Date((start + b * BUCKET_MIN) * 60_000).toISOString().slice(11, 16);
  return (
    <figure className="chart">
      <svg
        viewBox={`0 0 ${W} ${H + 18}`}
        width="100%"
        height={H + 18}
        role="img"
        aria-label={`Deliveries per minute over the last ${hours} hours, by source; peak ${peak.toFixed(1)} per minute`}
      >
        <line x1={0} x2={W} y1={H} y2={H} stroke="#dde1e6" />
        {peak > 0 && (
          <text x={2} y={10} className="axis">
            {peak >= 10 ? Math.round(peak) : peak.toFixed(1)}/min
          </text>
        )}
        {grid.map((cell, b) => {
          let y = H;
          return sources.map((s) => {
            const v = cell.get(s) ?? 0;
            if (v === 0) return null;
            const h = Math.max(v * scale, 1);
            y -= h;
            return (
              <rect
                key={`${b}-${s}`}
                x={b * bw + 0.5}
                y={y}
                width={Math.max(bw - 1, 1)}
                height={h}
                fill={COLORS[s] ?? "#888"}
              >
                <title>{`${label(b)} UTC · ${s}: ${v.toFixed(2)}/min`}</title>
              </rect>
            );
          });
        })}
        {[0, 6, 12, 18, 24].map((h) => {
          const x = Math.min((h * 60 * W) / (hours * 60), W - 30);
          return (
            <text key={h} x={x} y={H + 14} className="axis">
              {label((h * 60) / BUCKET_MIN)}
            </text>
          );
        })}
      </svg>
      <figcaption className="legend">
        {sources.length === 0 ? (
          <span className="muted">No deliveries in the last {hours} hours.</span>
        ) : (
          sources.map((s) => (
            <span key={s}>
              <i style={{ background: COLORS[s] ?? "#888" }} /> {s}
            </span>
          ))
        )}
      </figcaption>
    </figure>
  );
}
