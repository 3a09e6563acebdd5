import Link from "@/components/link";
import { Badge } from "@/components/ui/badge";
import type { SubjectTransition } from "@/lib/console/subject";
import { VersionTime } from "../../entities/_components/version-time";
import { entityHref } from "../../events/_components/links";
import { resolutionWords, transitionWords } from "./format";

type Move = Omit<SubjectTransition, "eventId"> & { source: string };

/** One timeline row an event wrote: the entity it moved, what was decided and why, and what changed. */
export function TransitionLine({ t }: { t: Move }) {
  const w = transitionWords(t);
  const how = resolutionWords(t);
  const changes = Object.entries(t.changes);
  return (
    <div className="flex min-w-0 flex-col gap-1" data-move={`${t.entityType}/${t.entityId}`}>
      <div className="flex flex-wrap items-center gap-x-2 gap-y-1">
        <Link
          href={entityHref(t.source, t.entityType, t.entityId)}
          className="font-mono text-xs break-all text-primary hover:underline"
        >
          {t.entityType} {t.entityId}
        </Link>
        <Badge tone={w.tone}>{w.label}</Badge>
        {how && <Badge tone="outline">{how}</Badge>}
      </div>
      <div className="text-xs text-muted-foreground">
        {t.version === null ? (
          "no version: a delta, applied once by its event id"
        ) : (
          <>
            version <VersionTime version={t.version} className="text-foreground" />
          </>
        )}
        {t.priorVersion !== null && (
          <>
            {" · "}
            {t.outcome === "stale" ? "older than" : t.outcome === "tie" ? "same as" : "replaced"}{" "}
            <VersionTime version={t.priorVersion} className="text-foreground" />
          </>
        )}
      </div>
      {changes.length > 0 && (
        <ul
          aria-label="What changed"
          className="flex flex-col gap-0.5 rounded-md bg-muted/60 px-2.5 py-1.5 font-mono text-xs"
        >
          {changes.map(([k, c]) => (
            <li key={k} className="break-all">
              {k}: <span className="text-muted-foreground">{JSON.stringify(c.from)}</span> → {JSON.stringify(c.to)}
            </li>
          ))}
        </ul>
      )}
      {t.note && t.note !== "delta" && !(t.priorVersion !== null && t.note.startsWith("older:")) && (
        <p className="text-xs break-words text-muted-foreground">{t.note}</p>
      )}
    </div>
  );
}
