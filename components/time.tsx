import { utc } from "./utc";

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ["year", 31_536_000],
  ["month", 2_592_000],
  ["day", 86_400],
  ["hour", 3_600],
  ["minute", 60],
  ["second", 1],
];
const rtf = new Intl.RelativeTimeFormat("en", { numeric: "auto" });

/** "3 hours ago" relative to `now`: the hover text beside a UTC date. */
export function relative(value: Date, now: Date = new Date()): string {
  const seconds = Math.round((value.getTime() - now.getTime()) / 1000);
  for (const [unit, size] of UNITS)
    if (Math.abs(seconds) >= size || unit === "second") return rtf.format(Math.round(seconds / size), unit);
  return "";
}

/**
 * A moment as the console shows it: UTC date and time, the relative time on hover. Unix seconds and
 * milliseconds (a provider's `created`) are accepted so no page prints a raw number.
 */
export function Time({
  value,
  ms,
  className,
}: {
  value: Date | string | number | null | undefined;
  ms?: boolean;
  className?: string;
}) {
  if (value === null || value === undefined) return <span className={className}>—</span>;
  const date =
    typeof value === "number"
      ? new Date(value < 1e11 ? value * 1000 : value)
      : typeof value === "string"
        ? new Date(value)
        : value;
  if (Number.isNaN(date.getTime())) return <span className={className}>{String(value)}</span>;
  return (
    <time dateTime={date.toISOString()} title={`${relative(date)} · UTC`} className={className}>
      {utc(date, { ms })}
    </time>
  );
}
