import { Fragment } from "react";
import { Time } from "@/components/time";
import { versionInstant } from "./format";

/** An entity version as the date it stands for ("never a raw unix number"); a small counter stays a number. */
export function Version({ value }: { value: number | null | undefined }) {
  if (value === null || value === undefined) return <span className="text-muted-foreground">no version</span>;
  const instant = versionInstant(value);
  if (!instant) return <span className="font-mono">version {value}</span>;
  return <Time value={instant.at} ms={instant.ms} className="font-mono" />;
}

/**
 * A timeline note as words with dates: the worker writes versions as numbers ("older: version 1712917129 <
 * applied version …"), this shows each one as the moment it stands for.
 */
export function NoteWithDates({ note }: { note: string }) {
  const parts = note.split(/(?<=\bversion )(\d{9,16})\b/);
  return (
    <>
      {parts.map((part, i) =>
        i % 2 === 1 && versionInstant(Number(part)) ? (
          <Version key={i} value={Number(part)} />
        ) : (
          <Fragment key={i}>{part}</Fragment>
        ),
      )}
    </>
  );
}
