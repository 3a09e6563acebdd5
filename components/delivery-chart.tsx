"use client";

import { useState } from "react";
import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { TooltipContentProps } from "recharts";

/** One bucket as the chart takes it: its start (ms since the epoch, UTC) and deliveries per source. */
export interface DeliveryPoint {
  t: number;
  v: Record<string, number>;
}

// Theme tokens, so the dark theme recolours the series; mixes stretch the palette past the base tokens.
const PALETTE = [
  "var(--primary)",
  "var(--success)",
  "var(--warning)",
  "var(--destructive)",
  "color-mix(in oklch, var(--primary) 45%, var(--success))",
  "var(--muted-foreground)",
  "color-mix(in oklch, var(--warning) 55%, var(--destructive))",
  "color-mix(in oklch, var(--primary) 50%, var(--destructive))",
];
const seriesColor = (index: number) => PALETTE[index % PALETTE.length]!;

const HOUR = 3_600_000;
const hhmm = (t: number) => new Date(t).toISOString().slice(11, 16);
const dayAndTime = (t: number) => new Date(t).toISOString().slice(0, 16).replace("T", " ");
const count = (n: number) => n.toLocaleString("en");

/** Buckets merged into wider ones (aligned to the epoch), so a phone's bars stay wide enough to see and hover. */
function merged(points: DeliveryPoint[], minutes: number): DeliveryPoint[] {
  const step = minutes * 60_000;
  const out: DeliveryPoint[] = [];
  for (const p of points) {
    const t = Math.floor(p.t / step) * step;
    let last = out.at(-1);
    if (last?.t !== t) out.push((last = { t, v: {} }));
    for (const [s, n] of Object.entries(p.v)) last.v[s] = (last.v[s] ?? 0) + n;
  }
  return out;
}

function ChartTooltip({
  active,
  payload,
  label,
  bucketMinutes,
}: {
  active?: boolean;
  payload?: TooltipContentProps["payload"];
  label?: string | number;
  bucketMinutes: number;
}) {
  if (!active || !payload?.length || typeof label !== "number") return null;
  const total = payload.reduce((n, p) => n + (typeof p.value === "number" ? p.value : 0), 0);
  return (
    <div className="min-w-40 rounded-md border bg-popover px-3 py-2 text-xs text-popover-foreground shadow-md">
      <div className="mb-1 font-medium">
        {dayAndTime(label)}–{hhmm(label + bucketMinutes * 60_000)} UTC
      </div>
      <ul className="flex flex-col gap-0.5">
        {[...payload].reverse().map((p) => (
          <li key={String(p.name)} className="flex items-center justify-between gap-4">
            <span className="flex items-center gap-1.5">
              <span aria-hidden className="size-2 rounded-sm" style={{ background: p.color }} />
              {p.name}
            </span>
            <span className="font-mono tabular-nums">{count(Number(p.value ?? 0))}</span>
          </li>
        ))}
      </ul>
      <div className="mt-1 flex justify-between gap-4 border-t pt-1 text-muted-foreground">
        <span>total</span>
        <span className="font-mono tabular-nums">{count(total)}</span>
      </div>
    </div>
  );
}

/**
 * Deliveries per bucket over the window, stacked by source: UTC hour ticks, a tooltip with each source's
 * count, and a legend with each source's total. Recharts measures its container, so it renders in the browser.
 */
export function DeliveryChart({
  points,
  sources,
  totals,
  bucketMinutes,
  hours,
}: {
  points: DeliveryPoint[];
  sources: string[];
  totals: Record<string, number>;
  bucketMinutes: number;
  hours: number;
}) {
  const [width, setWidth] = useState(0);
  if (sources.length === 0)
    return (
      <div
        data-testid="delivery-chart-empty"
        className="flex h-60 items-center justify-center rounded-md border border-dashed text-sm text-muted-foreground"
      >
        No deliveries in the last {hours} hours.
      </div>
    );
  const narrow = width > 0 && width < 560;
  const minutes = narrow ? bucketMinutes * 3 : bucketMinutes;
  const shown = narrow ? merged(points, minutes) : points;
  const every = (narrow ? 6 : 3) * HOUR;
  const ticks = shown.map((p) => p.t).filter((t) => t % every === 0);
  const summary = sources.map((s) => `${s} ${count(totals[s] ?? 0)}`).join(", ");
  return (
    <figure data-testid="delivery-chart" className="flex flex-col gap-3">
      <figcaption className="sr-only">
        Deliveries per {bucketMinutes} minutes over the last {hours} hours, by source: {summary}.
      </figcaption>
      <ResponsiveContainer width="100%" height={240} onResize={(w) => setWidth(w)}>
        <BarChart data={shown} margin={{ top: 8, right: 8, bottom: 0, left: 0 }} barCategoryGap={1}>
          <CartesianGrid vertical={false} stroke="var(--border)" />
          <XAxis
            dataKey="t"
            ticks={ticks}
            interval={0}
            tickFormatter={(t: number) => hhmm(t)}
            tick={{ fill: "var(--muted-foreground)", fontSize: 11 }}
            tickLine={false}
            axisLine={{ stroke: "var(--border)" }}
          />
          <YAxis
            allowDecimals={false}
            width={40}
            tick={{ fill: "var(--muted-foreground)", fontSize: 11 }}
            tickLine={false}
            axisLine={false}
            tickFormatter={(n: number) => count(n)}
          />
          <Tooltip
            cursor={{ fill: "var(--muted)", stroke: "none" }}
            isAnimationActive={false}
            content={(p) => (
              <ChartTooltip active={p.active} payload={p.payload} label={p.label} bucketMinutes={minutes} />
            )}
          />
          {sources.map((s, i) => (
            <Bar
              key={s}
              name={s}
              dataKey={(p: DeliveryPoint) => p.v[s] ?? 0}
              stackId="deliveries"
              fill={seriesColor(i)}
              isAnimationActive={false}
            />
          ))}
        </BarChart>
      </ResponsiveContainer>
      <div className="flex flex-wrap items-center justify-between gap-x-4 gap-y-1">
        <ul aria-label="Sources" data-testid="delivery-chart-legend" className="flex flex-wrap gap-x-4 gap-y-1 text-xs">
          {sources.map((s, i) => (
            <li key={s} data-source={s} className="flex items-center gap-1.5">
              <span aria-hidden className="size-2.5 rounded-sm" style={{ background: seriesColor(i) }} />
              <span className="font-medium">{s}</span>
              <span className="font-mono tabular-nums text-muted-foreground">{count(totals[s] ?? 0)}</span>
            </li>
          ))}
        </ul>
        <span data-testid="delivery-chart-bucket" className="text-xs text-muted-foreground">
          each bar: {minutes} minutes
        </span>
      </div>
    </figure>
  );
}
