import Link from "@/components/link";
import { Time } from "@/components/time";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import type { DeadEvent } from "@/lib/console/overview";
import { eventHref } from "../events/_components/links";
import { SectionHead } from "./section-head";
import { plural } from "@/lib/format/words";

/** The newest dead events: out of attempts, waiting for a person to fix, resolve or ignore them. */
export function DeadEvents({ dead }: { dead: { rows: DeadEvent[]; total: number; more: boolean } }) {
  return (
    <section aria-labelledby="dead-events" className="min-w-0">
      <SectionHead
        title={<span id="dead-events">Dead, waiting for a person</span>}
        description={
          dead.total === 0
            ? "None"
            : dead.total > dead.rows.length || dead.more
              ? `${dead.total.toLocaleString("en")}${dead.more ? "+" : ""} in all; the newest ${dead.rows.length} here`
              : `${dead.total.toLocaleString("en")} in all`
        }
        actions={
          <>
            {dead.total > 0 && (
              <Link href="/events?status=dead" className="text-primary hover:underline">
                all {dead.total.toLocaleString("en")}
                {dead.more ? "+" : ""} →
              </Link>
            )}
            <Link href="/failures" className="text-primary hover:underline">
              Work through failures →
            </Link>
          </>
        }
      />
      <Table>
        <TableHeader>
          <TableRow>
            <TableHead>Event</TableHead>
            <TableHead from="md">Last error</TableHead>
          </TableRow>
        </TableHeader>
        <TableBody>
          {dead.rows.map((d) => (
            <TableRow key={`${d.source}/${d.eventId}`} data-event-id={d.eventId}>
              <TableCell className="w-1/2 min-w-52">
                <Link href={eventHref(d)} className="font-mono text-xs break-all text-primary hover:underline">
                  {d.eventId}
                </Link>
                <div className="mt-0.5 text-xs text-muted-foreground">
                  {d.source} · <span className="font-mono break-all">{d.eventType}</span> ·{" "}
                  {plural(d.attempts, "attempt")}
                </div>
                <div className="text-xs text-muted-foreground">
                  received <Time value={d.receivedAt} />
                </div>
                {d.lastError && (
                  <div className="mt-1 line-clamp-3 text-xs break-words text-destructive md:hidden">{d.lastError}</div>
                )}
              </TableCell>
              <TableCell from="md" className="text-xs break-words text-destructive">
                <span className="line-clamp-3">{d.lastError ?? "—"}</span>
              </TableCell>
            </TableRow>
          ))}
          {dead.rows.length === 0 && (
            <TableRow>
              <TableCell colSpan={2} className="py-6 text-center text-muted-foreground">
                No dead events.
              </TableCell>
            </TableRow>
          )}
        </TableBody>
      </Table>
    </section>
  );
}
