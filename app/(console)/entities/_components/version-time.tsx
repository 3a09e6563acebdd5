import { Time } from "@/components/time";

/**
 * A version is the provider's ordering key: unix seconds (Stripe's `created`, Slack's `event_time`) or
 * microseconds since the epoch (ISO times: Paddle, Shopify, Stripe's thin events; lib/providers/time.ts).
 * Microseconds start past 1e14 (1973), seconds end before 1e11 (year 5138): the magnitude tells them apart.
 */
export function versionInstant(version: number): { date: Date; micros: boolean } {
  if (Math.abs(version) >= 1e14) return { date: new Date(Math.floor(version / 1000)), micros: true };
  if (Math.abs(version) >= 1e11) return { date: new Date(version), micros: false };
  return { date: new Date(version * 1000), micros: false };
}

/** A version as the date it stands for, to the microsecond when it has them; the raw key on hover. */
export function VersionTime({ version, className }: { version: number | null; className?: string }) {
  if (version === null) return <span className={className}>no version</span>;
  const { date, micros } = versionInstant(version);
  const extra = micros && version % 1000 !== 0 ? String(Math.abs(version % 1000)).padStart(3, "0") : "";
  return (
    <span className={className} data-version={version} title={`version ${version}`}>
      <Time value={date} ms={micros} />
      {extra}
    </span>
  );
}
