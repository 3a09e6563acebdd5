import Link from "@/components/link";
import { Time } from "@/components/time";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import type { EntityTimeline } from "@/lib/console/entity-timeline";
import { timelineVersionWords } from "@/lib/console/entity-words";
import { plural } from "@/lib/format/words";
import { eventHref } from "../../events/_components/links";
import { StateValue } from "./state-value";
import { VersionTime } from "./version-time";

const idLink = "font-mono text-xs break-all text-primary hover:underline";

/** The version guard in words: the date of the newest version applied, or why there is none. */
export function CurrentVersion({ t }: { t: EntityTimeline }) {
  const count = (o: string) => t.entries.filter((e) => e.outcome === o).length;
  const tally = (
    [
      [count("applied"), "applied"],
      [count("stale"), "stale"],
      [count("tie"), "tie"],
      [count("pending"), "waiting"],
    ] as const
  )
    .filter(([n]) => n > 0)
    .map(([n, w]) => `${n.toLocaleString("en")} ${w}`)
    .join(", ");
  const unversioned = timelineVersionWords(t);
  const setBy = t.current?.eventId ?? t.lastApplied?.eventId;
  return (
    <Card data-testid="entity-current">
      <CardHeader>
        <div className="min-w-0">
          <CardTitle>Current version</CardTitle>
          <CardDescription>Newest state wins: only a newer version is applied.</CardDescription>
        </div>
      </CardHeader>
      <CardContent>
        <dl className="grid grid-cols-[max-content_minmax(0,1fr)] gap-x-4 gap-y-2 text-sm">
          <dt className="text-muted-foreground">Version</dt>
          <dd data-testid="entity-current-version" className="min-w-0">
            {t.current ? (
              <VersionTime version={t.current.version} />
            ) : (
              <span className={t.lastApplied ? undefined : "text-muted-foreground"}>{unversioned}</span>
            )}
          </dd>
          <dt className="text-muted-foreground">{t.current ? "Set by" : "Last applied"}</dt>
          <dd className="min-w-0">
            {setBy ? (
              <Link href={eventHref({ source: t.source, eventId: setBy })} className={idLink}>
                {setBy}
              </Link>
            ) : (
              "—"
            )}
          </dd>
          <dt className="text-muted-foreground">Updated</dt>
          <dd className="min-w-0">
            <Time value={t.current?.updatedAt ?? t.lastApplied?.recordedAt} ms />
          </dd>
          <dt className="text-muted-foreground">Timeline</dt>
          <dd className="min-w-0">
            {plural(t.entries.length, "event")}
            {tally && <span className="text-muted-foreground"> ({tally})</span>}
          </dd>
        </dl>
      </CardContent>
    </Card>
  );
}

/** One business row as key/value pairs: payload-derived, so text only; versions and times as dates. */
function StateRow({ row }: { row: Record<string, unknown> }) {
  return (
    <dl className="grid grid-cols-[max-content_minmax(0,1fr)] gap-x-4 gap-y-1 text-sm">
      {Object.entries(row).map(([k, v]) => (
        <div key={k} className="contents">
          <dt className="font-mono text-xs leading-5 text-muted-foreground">{k}</dt>
          <dd className="min-w-0 font-mono text-xs leading-5 break-all">
            <StateValue name={k} value={v} />
          </dd>
        </div>
      ))}
    </dl>
  );
}

/** The business rows the handlers keep for the entity, as stored now. */
export function CurrentState({ t }: { t: EntityTimeline }) {
  return (
    <Card data-testid="entity-state">
      <CardHeader>
        <div className="min-w-0">
          <CardTitle>Current state</CardTitle>
          <CardDescription>
            {t.states.length > 1
              ? `${plural(t.states.length, "row")} kept for this ${t.entityType}`
              : "As the handlers keep it now"}
          </CardDescription>
        </div>
      </CardHeader>
      <CardContent className="flex flex-col gap-4">
        {t.states.length === 0 ? (
          <p className="text-sm text-muted-foreground">
            {t.tracked
              ? "No business row yet."
              : `No handler keeps a record of ${t.entityType}s; the timeline is the ledger's view.`}
          </p>
        ) : (
          t.states.map((row, i) => (
            <div key={i} className={i > 0 ? "border-t pt-4" : undefined}>
              <StateRow row={row} />
            </div>
          ))
        )}
      </CardContent>
    </Card>
  );
}
