import Link from "@/components/link";
import { EventStatusBadge } from "@/components/event-status";
import { Time } from "@/components/time";
import { Badge, type BadgeTone } from "@/components/ui/badge";
import { cn } from "@/components/ui/cn";
import type { EntityTimeline, TimelineEntry } from "@/lib/console/entity-timeline";
import { ApplyTieButton } from "../../events/_components/apply-tie-button";
import { entityHref, eventHref } from "../../events/_components/links";
import { VersionTime } from "./version-time";
import { tieResolvedWords } from "@/components/tie-resolution";

/** What the worker decided for this entity, in words: the badge on a timeline row. */
function decision(e: TimelineEntry, decidedLater: boolean): { label: string; tone: BadgeTone } | undefined {
  if (e.outcome === "applied") return { label: "applied", tone: "success" };
  if (e.outcome === "stale") return { label: "stale", tone: "warning" };
  if (e.outcome === "tie")
    return decidedLater ? { label: "tie", tone: "neutral" } : { label: "tie: undecided", tone: "danger" };
  return undefined;
}

const DOT: Record<TimelineEntry["outcome"], string> = {
  applied: "bg-success",
  stale: "bg-warning",
  tie: "bg-destructive",
  pending: "bg-primary",
  elsewhere: "bg-muted-foreground",
};

const json = (v: unknown) => (v === undefined ? "—" : JSON.stringify(v));
const idLink = "font-mono text-xs break-all text-primary hover:underline";

function Entry({
  e,
  t,
  mayDecide,
  decided,
}: {
  e: TimelineEntry;
  t: EntityTimeline;
  mayDecide: boolean;
  decided: boolean;
}) {
  const d = decision(e, decided);
  const changes = Object.entries(e.changes);
  return (
    <li data-event-id={e.eventId} data-outcome={e.outcome} className="group relative pb-4 pl-6 last:pb-0">
      <span aria-hidden className="absolute top-0 bottom-0 left-[5px] w-px bg-border group-last:hidden" />
      <span
        aria-hidden
        className={cn("absolute top-1.5 left-0 size-[11px] rounded-full ring-4 ring-card", DOT[e.outcome])}
      />
      <div className="flex flex-col gap-1.5 rounded-lg border bg-card px-4 py-3 shadow-xs">
        <div className="flex flex-wrap items-center gap-x-2 gap-y-1">
          {d ? (
            <Badge tone={d.tone}>{d.label}</Badge>
          ) : (
            <EventStatusBadge status={e.eventStatus} outcome={e.eventOutcome} resolution={e.eventResolution} />
          )}
          {e.resolution && <Badge tone="outline">{tieResolvedWords(e.resolution)}</Badge>}
          <span className="font-mono text-xs break-all">
            {e.eventType ?? <span className="text-muted-foreground">event no longer in the ledger</span>}
          </span>
          <Time value={e.recordedAt ?? e.receivedAt} ms className="ml-auto text-xs text-muted-foreground" />
        </div>
        <dl className="grid grid-cols-[max-content_minmax(0,1fr)] gap-x-3 gap-y-0.5 text-xs">
          <dt className="text-muted-foreground">Event</dt>
          <dd className="min-w-0">
            <Link href={eventHref({ source: t.source, eventId: e.eventId })} className={idLink}>
              {e.eventId}
            </Link>
            {!e.inLedger && <span className="text-muted-foreground"> (pruned: only its timeline row is kept)</span>}
          </dd>
          <dt className="text-muted-foreground">Version</dt>
          <dd className="min-w-0">
            {e.version === null ? (
              <span className="text-muted-foreground">none: a delta, applied once by its event id</span>
            ) : (
              <VersionTime version={e.version} />
            )}
          </dd>
          {(e.priorVersion !== null || e.priorEventId) && (
            <>
              <dt className="text-muted-foreground">{e.outcome === "stale" ? "Older than" : "Prior"}</dt>
              <dd className="min-w-0">
                {e.priorVersion !== null && <VersionTime version={e.priorVersion} />}
                {e.priorEventId && (
                  <>
                    {" "}
                    from{" "}
                    <Link href={eventHref({ source: t.source, eventId: e.priorEventId })} className={idLink}>
                      {e.priorEventId}
                    </Link>
                  </>
                )}
              </dd>
            </>
          )}
          {e.outcome === "elsewhere" && e.moved.length > 0 && (
            <>
              <dt className="text-muted-foreground">Moved</dt>
              <dd className="flex min-w-0 flex-col">
                {e.moved.map((m) => (
                  <Link
                    key={`${m.entityType}/${m.entityId}`}
                    href={entityHref(t.source, m.entityType, m.entityId)}
                    className={idLink}
                  >
                    {m.entityType} {m.entityId}
                  </Link>
                ))}
              </dd>
            </>
          )}
          {e.outcome === "pending" && (
            <>
              <dt className="text-muted-foreground">Received</dt>
              <dd>
                <Time value={e.receivedAt} ms />
              </dd>
            </>
          )}
        </dl>
        {changes.length > 0 && (
          <ul
            aria-label="What changed"
            className="flex flex-col gap-0.5 rounded-md bg-muted/60 px-3 py-2 font-mono text-xs"
          >
            {changes.map(([k, c]) => (
              <li key={k} className="break-all">
                {k}: <span className="text-muted-foreground">{json(c.from)}</span> → {json(c.to)}
              </li>
            ))}
          </ul>
        )}
        {e.note && e.note !== "delta" && !(e.priorVersion !== null && e.note.startsWith("older:")) && (
          <p className="text-xs break-words text-muted-foreground">{e.note}</p>
        )}
        {e.outcome === "tie" && !decided && mayDecide && (
          <div>
            <ApplyTieButton source={t.source} eventId={e.eventId} keptEventId={e.priorEventId} />
          </div>
        )}
      </div>
    </li>
  );
}

/** The entity's timeline as a vertical list, newest first: each event's decision, version, prior and changes. */
export function Timeline({ t, mayDecide }: { t: EntityTimeline; mayDecide: boolean }) {
  // A tie is open until a later row applies the same event by hand.
  const decided = new Set(t.entries.filter((e) => e.resolution === "by-hand").map((e) => e.eventId));
  return (
    <ol aria-label="Timeline" className="flex flex-col">
      {t.entries.map((e, i) => (
        <Entry key={`${e.eventId}-${i}`} e={e} t={t} mayDecide={mayDecide} decided={decided.has(e.eventId)} />
      ))}
    </ol>
  );
}
