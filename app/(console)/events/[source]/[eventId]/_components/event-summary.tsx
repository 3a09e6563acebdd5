import Link from "@/components/link";
import type { ReactNode } from "react";
import { EventStatusBadge } from "@/components/event-status";
import { Time } from "@/components/time";
import type { EventDetail } from "@/lib/console/event-detail";
import { entityHref, eventHref } from "../../../_components/links";
import { splitError, type outcomeOf } from "./format";
import { Version } from "./version";
import { TIE_HOW } from "@/components/tie-resolution";
import { plural } from "@/lib/format/words";

type Transition = EventDetail["transitions"][number];
type Outcome = ReturnType<typeof outcomeOf>;

const Mono = ({ children }: { children: ReactNode }) => (
  <span className="font-mono text-[0.8125rem] break-all">{children}</span>
);

function EntityLink({ t }: { t: Pick<Transition, "source" | "entityType" | "entityId"> }) {
  return (
    <Link className="text-primary hover:underline" href={entityHref(t.source, t.entityType, t.entityId)}>
      {t.entityType} <Mono>{t.entityId}</Mono>
    </Link>
  );
}

function OtherEvent({ source, eventId }: { source: string; eventId: string | null }) {
  if (!eventId) return <>the event applied before</>;
  return (
    <>
      event{" "}
      <Link className="text-primary hover:underline" href={eventHref({ source, eventId })}>
        <Mono>{eventId}</Mono>
      </Link>
    </>
  );
}

function applied(d: EventDetail): ReactNode {
  const t = d.transitions.findLast((x) => x.outcome === "applied");
  if (!t)
    return d.event.entityType && d.event.entityId ? (
      <>
        Applied to <EntityLink t={{ ...d.event, entityType: d.event.entityType, entityId: d.event.entityId }} />: its
        handler committed its effects.
      </>
    ) : (
      <>Applied: its handler committed its effects.</>
    );
  const fields = Object.keys(t.changes);
  const changed = fields.length > 0 && <> Changed {fields.join(", ")}.</>;
  const tie = t.resolution && (
    <>
      {" "}
      It tied with <OtherEvent source={t.source} eventId={t.priorEventId} /> at the same version, decided{" "}
      {TIE_HOW[t.resolution]}.
    </>
  );
  if (t.version === null)
    return (
      <>
        Applied: changed <EntityLink t={t} /> by an amount (a delta event has no version to compare).{changed}
      </>
    );
  if (t.priorVersion === null)
    return (
      <>
        Applied: set <EntityLink t={t} /> to <Version value={t.version} />, the first version the ledger has of it.
        {changed}
        {tie}
      </>
    );
  return (
    <>
      Applied: moved <EntityLink t={t} /> from <Version value={t.priorVersion} /> to <Version value={t.version} />.
      {changed}
      {tie}
    </>
  );
}

function notApplied(d: EventDetail, outcome: "stale" | "tie"): ReactNode {
  const t = d.transitions.findLast((x) => x.outcome === outcome);
  if (outcome === "tie")
    return t ? (
      <>
        Tie: the same version (<Version value={t.version} />) as{" "}
        <OtherEvent source={t.source} eventId={t.priorEventId} />, and nothing could order them. That event&apos;s state
        is kept until a person decides.
      </>
    ) : (
      <>Tie: the same version as the applied event, and nothing could order them.</>
    );
  if (!t) return <>Stale: older than the version already applied; recorded, not applied.</>;
  if (t.resolution)
    return (
      <>
        Stale: a tie at the same version (<Version value={t.version} />) with{" "}
        <OtherEvent source={t.source} eventId={t.priorEventId} />, decided {TIE_HOW[t.resolution]}: that event&apos;s
        state stays.
      </>
    );
  return (
    <>
      Stale: older than the applied version (<Version value={t.priorVersion} />,{" "}
      <OtherEvent source={t.source} eventId={t.priorEventId} />
      ). Its own, <Version value={t.version} />, was recorded on <EntityLink t={t} />, not applied.
    </>
  );
}

/** What happened to the event, in one sentence a support person can read out. */
function sentence(d: EventDetail, o: Outcome, max: number): ReactNode {
  const e = d.event;
  const used = e.attempts - e.attemptsBase;
  if (o.resolution)
    return (
      <>
        {o.resolution === "resolved" ? "Resolved by hand" : "Ignored by hand"}
        {o.by && <> by {o.by}</>}
        {o.note ? <>: {o.note}</> : "."}
        {o.at && (
          <span className="text-muted-foreground">
            {" "}
            (<Time value={o.at} />)
          </span>
        )}
      </>
    );
  const { reason, permanent } = splitError(e.lastError);
  switch (e.status) {
    case "claimed":
      return e.attempts === 0 ? (
        <>
          Waiting: received <Time value={e.receivedAt} />, not attempted yet.
        </>
      ) : (
        <>
          Waiting: queued again{e.nextActor && <> by {e.nextActor}</>}; the next attempt is {used + 1} of {max}.
        </>
      );
    case "processing":
      return (
        <>
          Processing: attempt {used} of {max} started <Time value={e.leasedAt} />
          {e.leasedBy && <> on {e.leasedBy}</>}.
        </>
      );
    case "failed":
      return (
        <>
          Retrying: attempt {used} of {max} failed, next retry at <Time value={e.nextAttemptAt} />.
        </>
      );
    case "dead":
      return (
        <>
          Dead because {reason ?? "of an error that was not recorded"} after {used} of {plural(max, "attempt")}
          {permanent && " (a permanent error: retrying cannot fix it)"}.
        </>
      );
    case "settled":
      switch (o.outcome) {
        case "stale":
        case "tie":
          return notApplied(d, o.outcome);
        case "ignored":
          if (e.test)
            return <>A test event sent from the console: verified and stored like any other, never applied.</>;
          return (
            <>
              Ignored: no handler for <Mono>{e.eventType}</Mono>; nothing to apply.
            </>
          );
        case "settled":
          return applied(d);
        default:
          return d.attempts.length === 0 ? <>Settled: no attempt is recorded for it.</> : applied(d);
      }
  }
}

export function EventSummary({
  detail,
  outcome,
  maxAttempts,
}: {
  detail: EventDetail;
  outcome: Outcome;
  maxAttempts: number;
}) {
  const e = detail.event;
  const { reason } = splitError(e.lastError);
  return (
    <div className="flex min-w-0 flex-col gap-2" data-summary="">
      <div className="flex min-w-0 items-start gap-2.5">
        <EventStatusBadge
          status={e.status}
          outcome={outcome.outcome}
          resolution={outcome.resolution}
          test={e.test}
          className="mt-0.5"
        />
        <p className="min-w-0 text-[0.9375rem] leading-6 break-words" data-summary-text="">
          {sentence(detail, outcome, maxAttempts)}
        </p>
      </div>
      {e.status === "failed" && reason && (
        <p className="rounded-md border border-destructive/30 bg-destructive/5 px-3 py-2 font-mono text-xs break-words text-destructive">
          {reason}
        </p>
      )}
      {e.intakeNote && (
        <p className="rounded-md border border-warning/40 bg-warning/10 px-3 py-2 text-xs break-words">
          At intake: {e.intakeNote}
        </p>
      )}
    </div>
  );
}
