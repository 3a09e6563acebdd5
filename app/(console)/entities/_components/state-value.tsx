import { Time } from "@/components/time";
import { show } from "../../subjects/_components/format";
import { VersionTime } from "./version-time";

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}(:?\d{2})?)$/;

/** A business row's value as text (payload-derived: never markup); a version or a timestamp as a UTC date. */
export function StateValue({ name, value }: { name: string; value: unknown }) {
  if (name === "version" && /^\d+$/.test(String(value))) return <VersionTime version={Number(value)} />;
  if (value instanceof Date) return <Time value={value} ms />;
  if (typeof value === "string" && TIMESTAMP.test(value)) {
    // PostgreSQL's text form ("2026-12-01 15:45:29.398285+00") as ISO 8601, which Date parses everywhere.
    const iso = value.replace(" ", "T").replace(/([+-]\d{2})$/, "$1:00");
    return <Time value={iso} ms />;
  }
  return <>{show(value)}</>;
}
