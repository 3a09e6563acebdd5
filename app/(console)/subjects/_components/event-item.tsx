import Link from "@/components/link";
import { EventStatusBadge } from "@/components/event-status";
import { Time } from "@/components/time";
import { Badge } from "@/components/ui/badge";
import { cn } from "@/components/ui/cn";
import type { SubjectEvent } from "@/lib/console/subject";
import { entityHref, eventHref } from "../../events/_components/links";
import { plural } from "@/lib/format/words";
import { badgeInput } from "./format";
import { TransitionLine } from "./transition-line";

const DOT: Record<string, string> = {
  dead: "bg-destructive",
  failed: "bg-warning",
  claimed: "bg-primary",
  processing: "bg-primary",
  settled: "bg-success",
};

/** One event in the customer's timeline: when it happened, how it ended, what it cost and what it moved. */
export function EventItem({ e }: { e: SubjectEvent }) {
  const badge = badgeInput({ ...e, lastOutcome: e.lastAttempt?.outcome });
  const stale = badge.outcome === "stale" || badge.outcome === "tie";
  const at = e.providerTime?.at ?? e.receivedAt;
  const error = e.status === "dead" || e.status === "failed" ? (e.lastError ?? e.lastAttempt?.error) : null;
  return (
    <li data-event-id={e.eventId} data-source={e.source} className="group relative pb-4 pl-6 last:pb-0">
      <span aria-hidden className="absolute top-0 bottom-0 left-[5px] w-px bg-border group-last:hidden" />
      <span
        aria-hidden
        className={cn(
          "absolute top-4 left-0 size-[11px] rounded-full ring-4 ring-background",
          stale ? "bg-warning" : (DOT[e.status] ?? "bg-muted-foreground"),
        )}
      />
      <article className="flex min-w-0 flex-col gap-2 rounded-lg border bg-card px-4 py-3 shadow-xs">
        <div className="flex flex-wrap items-start justify-between gap-x-3 gap-y-1">
          <div className="flex min-w-0 flex-wrap items-center gap-x-2 gap-y-1">
            <Time value={at} className="text-xs font-medium" />
            <EventStatusBadge {...badge} />
            <Badge tone="outline">{e.source}</Badge>
            {e.via === "replay" && <Badge tone="info">via replay</Badge>}
            {e.duplicates > 0 && <Badge tone="neutral">{plural(e.duplicates, "duplicate")}</Badge>}
          </div>
          {e.amount && (
            <span className="text-base font-semibold tabular-nums" title={`from ${e.amount.field}`}>
              {e.amount.text}
            </span>
          )}
        </div>
        <div className="font-mono text-xs break-all">{e.eventType}</div>
        {error && (
          <p className="rounded-md bg-destructive/10 px-2.5 py-1.5 text-xs break-words text-destructive">{error}</p>
        )}
        <dl className="grid grid-cols-[max-content_minmax(0,1fr)] gap-x-3 gap-y-1 text-xs">
          <dt className="text-muted-foreground">Event</dt>
          <dd className="min-w-0">
            <Link href={eventHref(e)} className="font-mono break-all text-primary hover:underline">
              {e.eventId}
            </Link>
          </dd>
          <dt className="text-muted-foreground">Happened</dt>
          <dd>
            {e.providerTime ? (
              <>
                <Time value={e.providerTime.at} />{" "}
                <span className="text-muted-foreground">({e.providerTime.field})</span>
              </>
            ) : (
              <span className="text-muted-foreground">the provider gives no time: received time shown</span>
            )}
          </dd>
          <dt className="text-muted-foreground">Received</dt>
          <dd>
            <Time value={e.receivedAt} ms />
          </dd>
          <dt className="text-muted-foreground">Delivered</dt>
          <dd>
            {plural(e.deliveries, "time")}
            {e.duplicates > 0 && <span className="text-muted-foreground"> ({plural(e.duplicates, "duplicate")})</span>}
          </dd>
          <dt className="text-muted-foreground">Attempts</dt>
          <dd>{e.attempts.toLocaleString("en")}</dd>
          {e.amount && (
            <>
              <dt className="text-muted-foreground">Amount</dt>
              <dd>
                {e.amount.text} <span className="font-mono text-muted-foreground">({e.amount.field})</span>
              </dd>
            </>
          )}
        </dl>
        <div className="flex flex-col gap-2 border-t pt-2">
          <div className="text-xs font-medium text-muted-foreground">Moved</div>
          {e.transitions.length === 0 && !e.entity && <span className="text-xs text-muted-foreground">no entity</span>}
          {e.transitions.length === 0 && e.entity && (
            <Link
              className="font-mono text-xs break-all text-primary hover:underline"
              href={entityHref(e.source, e.entity.type, e.entity.id)}
            >
              {e.entity.type} {e.entity.id}
            </Link>
          )}
          {e.transitions.map((t, i) => (
            <TransitionLine key={i} t={t} />
          ))}
        </div>
      </article>
    </li>
  );
}
