import Link from "@/components/link";
import { Time } from "@/components/time";
import { Badge, type BadgeTone } from "@/components/ui/badge";
import type { EventDetail } from "@/lib/console/event-detail";
import { entityHref, eventHref } from "../../../_components/links";
import { NoteWithDates, Version } from "./version";
import { tieResolvedWords } from "@/components/tie-resolution";

type Transition = EventDetail["transitions"][number];
type WouldHaveSet = EventDetail["wouldHaveSet"][number];

const OUTCOME: Record<Transition["outcome"], { label: string; tone: BadgeTone }> = {
  applied: { label: "applied", tone: "success" },
  stale: { label: "stale: not applied", tone: "warning" },
  tie: { label: "tie: not decided", tone: "danger" },
};

const shown = (v: unknown) => (v === undefined ? "—" : JSON.stringify(v));

/** A stale or tied event's state beside the one standing: what it would have set, and what won. */
function CarriedBesideStanding({ w, source }: { w: WouldHaveSet; source: string }) {
  return (
    <div className="mt-2 flex min-w-0 flex-col gap-1" data-would-have-set="">
      <p className="text-xs text-muted-foreground">
        Not applied. It carried this; the state standing now
        {w.standing?.eventId ? (
          <>
            {" "}
            (set by{" "}
            <Link
              className="font-mono break-all text-primary hover:underline"
              href={eventHref({ source, eventId: w.standing.eventId })}
            >
              {w.standing.eventId}
            </Link>
            {w.standing.version !== null && (
              <>
                , version <Version value={w.standing.version} />
              </>
            )}
            )
          </>
        ) : null}{" "}
        won:
      </p>
      <dl className="grid grid-cols-1 gap-x-4 gap-y-1 text-xs sm:grid-cols-[minmax(8rem,max-content)_1fr]">
        {w.fields.map((f) => (
          <div key={f.field} className="contents" data-field={f.field}>
            <dt className="font-mono break-all text-muted-foreground">{f.field}</dt>
            <dd className="mb-1 font-mono break-all sm:mb-0">
              <span data-carried="">{shown(f.carried)}</span>
              {JSON.stringify(f.carried) === JSON.stringify(f.standing) ? (
                <span className="font-sans text-muted-foreground"> (the same stands)</span>
              ) : (
                <>
                  {" "}
                  <span className="font-sans text-muted-foreground">· standing:</span>{" "}
                  <span data-standing="">{shown(f.standing)}</span>
                </>
              )}
            </dd>
          </div>
        ))}
      </dl>
    </div>
  );
}

/** Why nothing moved, when no entity timeline row names the event. */
function nothingBecause(detail: EventDetail, outcome: string | null): string {
  const e = detail.event;
  if (e.status !== "settled") return "Nothing yet: it has not been applied.";
  if (outcome === "ignored" && e.test) return "Nothing: a test event is never applied.";
  if (outcome === "ignored") return `Nothing: no handler takes ${e.eventType}.`;
  if (!e.entityType) return "No entity: its handler keeps no versioned state, or the event names none.";
  return "No change was recorded on an entity for this event.";
}

export function ChangesTab({ detail, outcome }: { detail: EventDetail; outcome: string | null }) {
  if (detail.transitions.length === 0)
    return <p className="py-4 text-sm text-muted-foreground">{nothingBecause(detail, outcome)}</p>;
  return (
    <ul className="flex min-w-0 flex-col gap-3">
      {detail.transitions.map((t) => {
        const changes = Object.entries(t.changes);
        const carried = detail.wouldHaveSet.find((w) => w.transitionId === t.id);
        return (
          <li
            key={t.id}
            className="min-w-0 rounded-lg border bg-card p-3"
            data-transition={t.outcome}
            data-event-id={t.eventId}
          >
            <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
              <Link
                className="min-w-0 text-sm font-medium text-primary hover:underline"
                href={entityHref(t.source, t.entityType, t.entityId)}
              >
                {t.entityType} <span className="font-mono break-all">{t.entityId}</span>
              </Link>
              <Badge tone={OUTCOME[t.outcome].tone}>{OUTCOME[t.outcome].label}</Badge>
              {t.resolution && <Badge tone="outline">{tieResolvedWords(t.resolution)}</Badge>}
            </div>
            <p className="mt-1 text-xs text-muted-foreground">
              Version <Version value={t.version} />
              {t.priorVersion !== null && (
                <>
                  {" "}
                  · before it <Version value={t.priorVersion} />
                </>
              )}{" "}
              · recorded <Time value={t.recordedAt} />
            </p>
            {changes.length > 0 ? (
              <dl
                className="mt-2 grid grid-cols-1 gap-x-4 gap-y-1 text-xs sm:grid-cols-[minmax(8rem,max-content)_1fr]"
                data-changes=""
              >
                {changes.map(([field, c]) => (
                  <div key={field} className="contents">
                    <dt className="font-mono text-muted-foreground break-all">{field}</dt>
                    <dd className="mb-1 font-mono break-all sm:mb-0">
                      <span className="text-muted-foreground">{shown(c.from)}</span> → <span>{shown(c.to)}</span>
                    </dd>
                  </div>
                ))}
              </dl>
            ) : carried ? (
              <CarriedBesideStanding w={carried} source={t.source} />
            ) : (
              <p className="mt-2 text-xs text-muted-foreground" data-changes="">
                {t.outcome === "applied"
                  ? t.note === "delta"
                    ? "A delta event: it changed the entity by an amount, with no fields to compare."
                    : "No field changed: the state it carried was the state already stored."
                  : "Not applied: recorded on the timeline, nothing written."}
              </p>
            )}
            {t.note && t.note !== "delta" && (
              <p className="mt-2 rounded-md bg-muted px-2.5 py-1.5 text-xs break-words" data-note="">
                <NoteWithDates note={t.note} />
              </p>
            )}
          </li>
        );
      })}
    </ul>
  );
}
