import type { BundleSummary } from "@/lib/console/bundle-summary";

const muted = "text-muted-foreground print:text-neutral-600";

/** An ISO 8601 instant, written as it is: a bundle is read by people who compare it with other records. */
function Iso({ value }: { value: string }) {
  return (
    <time dateTime={value} className="font-mono text-xs">
      {value}
    </time>
  );
}

/**
 * The dispute bundle's first page: the conclusion, who, when, the integrity check, and one line per event
 * (what was charged or changed, when, delivered and applied how many times). The evidence follows it.
 */
export function BundleSummaryPage({ summary, className }: { summary: BundleSummary; className?: string }) {
  const { who, period } = summary;
  return (
    <section aria-labelledby="bundle-summary" data-bundle-summary="" className={className}>
      <h2 id="bundle-summary" className="mb-2 text-base font-semibold">
        Summary
      </h2>
      <p className="mb-4 text-[0.9375rem] leading-6 font-medium break-words" data-conclusion="">
        {summary.conclusion}
      </p>
      <dl className="grid grid-cols-1 gap-x-4 gap-y-1 text-sm sm:grid-cols-[10rem_minmax(0,1fr)]">
        <dt className={muted}>Who</dt>
        <dd className="mb-1 min-w-0 break-words sm:mb-0">
          <span className="font-mono break-all">{who.subject}</span>
          {who.names.length > 0 && <> ({who.names.join(", ")})</>}
          {who.emails.length > 0 && (
            <span className={`block text-xs ${muted}`}>emails in its events: {who.emails.join(", ")}</span>
          )}
        </dd>
        <dt className={muted}>When (UTC)</dt>
        <dd className="mb-1 min-w-0 sm:mb-0">
          {period ? (
            <>
              <Iso value={period.first} /> to <Iso value={period.last} />
            </>
          ) : (
            "no event"
          )}
        </dd>
        <dt className={muted}>Integrity</dt>
        <dd className="mb-1 min-w-0 break-words sm:mb-0">{summary.integrity}</dd>
      </dl>
      {summary.events.length > 0 && (
        <ol className="mt-4 flex list-decimal flex-col gap-2 pl-5 text-sm" aria-label="Events in words">
          {summary.events.map((e) => (
            <li key={`${e.source}/${e.eventId}`} className="min-w-0 break-words" data-summary-event={e.eventId}>
              <span className="font-medium">{e.sentence}</span>
              <span className={`block text-xs ${muted}`}>
                <Iso value={e.when} /> (
                {e.whenSource === "provider" ? "when the provider says it happened" : "received"}) ·{" "}
                <span className="font-mono break-all">
                  {e.source} / {e.eventId}
                </span>{" "}
                · <span className="font-mono break-all">{e.eventType}</span>
              </span>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
