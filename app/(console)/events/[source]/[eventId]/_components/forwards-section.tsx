import Link from "@/components/link";
import type { ReactNode } from "react";
import { Time } from "@/components/time";
import { Badge } from "@/components/ui/badge";
import type { Db } from "@/db/client";
import { can, type Actor } from "@/lib/roles";
import { plural } from "@/lib/format/words";
import { getEventForwards, type EventForward } from "@/lib/forward/reads";
import { FORWARD_STATUS, ms } from "../../../../destinations/_components/forward-words";
import { RequeueForwardButton } from "../../../../destinations/_components/requeue-forward-button";
import { Version } from "./version";

type Forward = Extract<EventForward, { kind: "forward" }>;

/** What happened to this event at one destination, in a sentence. */
function Outcome({ f }: { f: EventForward }): ReactNode {
  if (f.kind === "filter") return <>Not forwarded: its sources or types leave this event out.</>;
  if (f.kind === "not-queued")
    return f.settled ? (
      <>Not queued: the destination was added or enabled after this event settled. Replay a window to send it.</>
    ) : (
      <>Waits for the event to settle: forwards are queued as it does.</>
    );
  const tries = plural(f.attempts, "attempt");
  switch (f.status) {
    case "sent":
      return (
        <>
          Forwarded <Time value={f.sentAt} /> UTC, after {tries}.
        </>
      );
    case "pending":
      return (
        <>
          Waiting for the forwarder since <Time value={f.createdAt} /> UTC{f.attempts > 0 && <> ({tries} so far)</>}.
        </>
      );
    case "sending":
      return <>A request is in flight (attempt {f.attempts}).</>;
    case "failed":
      return (
        <>
          Failed {tries}; next retry at <Time value={f.nextAttemptAt} /> UTC.
        </>
      );
    case "dead":
      return <>Dead after {tries}: it waits for a person.</>;
    case "stale":
      return (
        <>
          Its state (<Version value={f.entityVersion} />) is older than the one the destination has
          {f.guardVersion !== null && (
            <>
              {" "}
              (<Version value={f.guardVersion} />)
            </>
          )}
          .
        </>
      );
    case "tie":
      return (
        <>
          The same version (<Version value={f.entityVersion} />) as the state the destination has, from another event.
        </>
      );
    case "superseded":
      return (
        <>
          A newer state of its entity
          {f.guardVersion !== null && (
            <>
              {" "}
              (<Version value={f.guardVersion} />)
            </>
          )}{" "}
          went instead.
        </>
      );
  }
}

function StatusBadge({ f }: { f: EventForward }) {
  if (f.kind === "filter") return <Badge tone="neutral">not forwarded: filter</Badge>;
  if (f.kind === "not-queued") return <Badge tone="neutral">not queued</Badge>;
  const s = FORWARD_STATUS[f.status];
  return (
    <Badge tone={s.tone} title={s.hint} data-forward-status={f.status}>
      {s.label}
    </Badge>
  );
}

function Attempts({ f }: { f: Forward }) {
  if (f.attemptList.length === 0) return null;
  return (
    <details className="text-sm">
      <summary className="cursor-pointer text-xs text-muted-foreground">
        {plural(f.attemptList.length, "attempt")}
      </summary>
      <ol className="mt-2 flex flex-col gap-2">
        {f.attemptList.map((a) => (
          <li key={a.id} className="min-w-0 rounded-md border p-2 text-xs" data-forward-attempt={a.number}>
            <span className="font-medium">#{a.number}</span> <Time value={a.startedAt} ms className="font-mono" /> ·{" "}
            {ms(a.durationMs)} ·{" "}
            {a.statusCode !== null ? (
              <Badge tone={a.error ? "danger" : "success"}>{a.statusCode}</Badge>
            ) : (
              <Badge tone="danger">no answer</Badge>
            )}
            {a.error && <span className="mt-1 block font-mono break-words text-destructive">{a.error}</span>}
            {/* The destination's own words: rendered as text, never as markup. */}
            {a.responseExcerpt && (
              <pre className="mt-1 max-h-32 overflow-auto rounded bg-muted/50 p-1.5 font-mono break-all whitespace-pre-wrap">
                {a.responseExcerpt}
              </pre>
            )}
          </li>
        ))}
      </ol>
    </details>
  );
}

/**
 * The event page's Forwards section: per destination, whether and when this event was forwarded, with each
 * attempt, or why not; ops may requeue a failed or dead forward.
 */
export async function ForwardsSection({
  db,
  actor,
  source,
  eventId,
}: {
  db: Db;
  actor: Actor;
  source: string;
  eventId: string;
}) {
  const forwards = await getEventForwards(db, actor, { source, eventId });
  const requeue = can(actor.role, "forwards.requeue");
  return (
    <section className="mt-6 flex min-w-0 flex-col gap-3" aria-labelledby="forwards-heading">
      <h2 id="forwards-heading" className="text-base font-semibold">
        Forwards
      </h2>
      {forwards.length === 0 ? (
        <p className="text-sm text-muted-foreground">
          No destination takes events now. <Link href="/destinations">Destinations</Link> forward settled events to your
          own endpoints.
        </p>
      ) : (
        <ul className="flex flex-col gap-3">
          {forwards.map((f) => (
            <li
              key={f.destination}
              data-forward={f.destination}
              className="flex min-w-0 flex-col gap-2 rounded-lg border p-3"
            >
              <div className="flex flex-wrap items-center justify-between gap-2">
                <span className="flex min-w-0 flex-wrap items-center gap-2">
                  <Link href="/destinations" className="font-mono text-sm font-medium break-all hover:underline">
                    {f.destination}
                  </Link>
                  <StatusBadge f={f} />
                </span>
                {requeue && f.kind === "forward" && (f.status === "failed" || f.status === "dead") && (
                  <RequeueForwardButton destination={f.destination} source={source} eventId={eventId} />
                )}
              </div>
              <p className="text-sm break-words">
                <Outcome f={f} />
              </p>
              {f.kind === "forward" && f.lastError && f.status !== "sent" && (
                <p className="font-mono text-xs break-words text-destructive">{f.lastError}</p>
              )}
              {f.kind === "forward" && (
                <p className="text-xs text-muted-foreground">
                  webhook-id <code className="font-mono break-all">{f.webhookId}</code>
                </p>
              )}
              {f.kind === "forward" && <Attempts f={f} />}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
