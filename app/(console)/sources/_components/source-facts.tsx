import type { ReactNode } from "react";
import { utc } from "@/components/utc";
import type { SourceSummary } from "@/lib/sources/summary";
import { ago, REFUSAL_WORDS } from "./format";

const plural = (n: number, one: string, many: string) => `${n.toLocaleString("en")} ${n === 1 ? one : many}`;

/** The counts a source is judged by; `children` adds more dt/dd pairs to the same list (its columns align). */
export function SourceFacts({ source, now, children }: { source: SourceSummary; now: Date; children?: ReactNode }) {
  return (
    <dl className="facts source-facts">
      <dt>Last delivery</dt>
      <dd>
        {source.lastDeliveryAt ? (
          <>
            {ago(source.lastDeliveryAt, now)} <span className="muted mono">({utc(source.lastDeliveryAt)} UTC)</span>
          </>
        ) : (
          <span className="muted">none yet</span>
        )}
      </dd>
      <dt>24 h</dt>
      <dd>
        <span data-count="deliveries">{plural(source.deliveries24h, "delivery", "deliveries")}</span> ·{" "}
        <span data-count="duplicates">{plural(source.duplicates24h, "duplicate", "duplicates")}</span>
      </dd>
      <dt>Refused, 24 h</dt>
      <dd data-count="refused">
        {source.refused24h === 0 ? (
          "none"
        ) : (
          <>
            <strong>{source.refused24h.toLocaleString("en")}</strong>:{" "}
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
