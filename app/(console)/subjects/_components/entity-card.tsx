import Link from "@/components/link";
import { Time } from "@/components/time";
import { subjectEntityVersionWords } from "@/lib/console/entity-words";
import type { SubjectEntity } from "@/lib/console/subject";
import { StateValue } from "../../entities/_components/state-value";
import { VersionTime } from "../../entities/_components/version-time";
import { entityHref } from "../../events/_components/links";

/** An entity the customer's events moved (or name), with its version and business row as they stand now. */
export function EntityCard({ x }: { x: SubjectEntity }) {
  return (
    <section
      data-entity={`${x.entityType}/${x.entityId}`}
      className="flex min-w-0 flex-col gap-2 rounded-lg border bg-card px-4 py-3 shadow-xs"
    >
      <h3 className="min-w-0">
        <Link
          className="font-mono text-sm break-all text-primary hover:underline"
          href={entityHref(x.source, x.entityType, x.entityId)}
        >
          {x.entityType} {x.entityId}
        </Link>
      </h3>
      <p className="text-xs text-muted-foreground">
        {x.source} ·{" "}
        {x.current ? (
          <>
            version <VersionTime version={x.current.version} className="text-foreground" />, since{" "}
            <Time value={x.current.updatedAt} />
          </>
        ) : (
          subjectEntityVersionWords(x)
        )}
      </p>
      {x.untracked ? (
        <p className="text-xs text-muted-foreground">
          No handler keeps a record of {x.entityType}s: the events are the ledger&apos;s view.
        </p>
      ) : x.state.length === 0 ? (
        <p className="text-xs text-muted-foreground">No business row yet.</p>
      ) : (
        x.state.map((row, i) => (
          <dl
            key={i}
            className="grid grid-cols-[max-content_minmax(0,1fr)] gap-x-3 gap-y-0.5 rounded-md bg-muted/50 px-2.5 py-2 font-mono text-xs"
          >
            {Object.entries(row).map(([k, v]) => (
              <div key={k} className="contents">
                <dt className="text-muted-foreground">{k}</dt>
                <dd className="min-w-0 break-all">
                  <StateValue name={k} value={v} />
                </dd>
              </div>
            ))}
          </dl>
        ))
      )}
    </section>
  );
}
