import type { ReactNode } from "react";
import { Time } from "@/components/time";
import type { SourceSummary } from "@/lib/sources/summary";
import { ago, REFUSAL_WORDS } from "./format";
import { plural } from "@/lib/format/words";

/** One row of a facts list: the term, then what it is. */
export function Fact({ term, children }: { term: string; children: ReactNode }) {
  return (
    <>
      <dt className="text-muted-foreground">{term}</dt>
      <dd className="min-w-0 wrap-anywhere">{children}</dd>
    </>
  );
}

/** The counts a source is judged by; `children` adds more Facts to the same list (its columns align). */
export function SourceFacts({ source, now, children }: { source: SourceSummary; now: Date; children?: ReactNode }) {
  return (
    <dl className="grid grid-cols-[minmax(0,auto)_minmax(0,1fr)] gap-x-4 gap-y-1.5 text-sm">
      <Fact term="Last delivery">
        {source.lastDeliveryAt ? (
          <>
            {ago(source.lastDeliveryAt, now)}{" "}
            <span className="text-xs text-muted-foreground">
              (<Time value={source.lastDeliveryAt} /> UTC)
            </span>
          </>
        ) : (
          <span className="text-muted-foreground">none yet</span>
        )}
      </Fact>
      <Fact term="24 h">
        <span data-count="deliveries">{plural(source.deliveries24h, "delivery", "deliveries")}</span> ·{" "}
        <span data-count="duplicates">{plural(source.duplicates24h, "duplicate")}</span>
      </Fact>
      <dt className="text-muted-foreground">Refused, 24 h</dt>
      <dd className="min-w-0 wrap-anywhere" data-count="refused">
        {source.refused24h === 0 ? (
          <span className="text-muted-foreground">none</span>
        ) : (
          <>
            <strong className="text-destructive">{source.refused24h.toLocaleString("en")}</strong>:{" "}
            {source.refusals24h.map((r, i) => (
              <span key={r.reason} data-reason={r.reason}>
                {i > 0 && ", "}
                {REFUSAL_WORDS[r.reason]} × {r.count.toLocaleString("en")}
              </span>
            ))}
          </>
        )}
      </dd>
      {children}
    </dl>
  );
}
