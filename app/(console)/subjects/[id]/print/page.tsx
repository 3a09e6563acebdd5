import type { Metadata } from "next";
import Link from "@/components/link";
import type { ReactNode } from "react";
import { EventStatusBadge } from "@/components/event-status";
import { Time } from "@/components/time";
import { cn } from "@/components/ui/cn";
import { buildDisputeBundle, type BundleEvent } from "@/lib/console/dispute-bundle";
import type { SignatureCheck } from "@/lib/console/event-detail";
import { sourcesFromEnv } from "@/lib/sources/from-env";
import { requirePage } from "../../../../_lib/session";
import { plural } from "@/lib/format/words";
import { BundleSummaryPage } from "../../_components/bundle-summary";
import { badgeInput, subjectFromParam, subjectHref } from "../../_components/format";
import { InvalidSubject } from "../../_components/invalid-subject";
import { PrintButton } from "../../_components/print-button";
import { TransitionLine } from "../../_components/transition-line";

export const metadata: Metadata = { title: "Dispute bundle" };

// Paper is white whatever the screen's theme: in print, text goes black and frames lose their shadows.
const frame = "rounded-lg border bg-card shadow-xs print:rounded-none print:border-0 print:shadow-none";
const muted = "text-muted-foreground print:text-neutral-600";

function checkWords(c: SignatureCheck): string {
  if (c.state === "verifies") return "yes: the stored body and headers verify with the source's current secret";
  if (c.state === "no-secret") return "not checked: no secret is configured for this source now";
  return `no: ${c.reason}`;
}

function Facts({ children }: { children: ReactNode }) {
  return (
    <dl className="grid grid-cols-1 gap-x-4 gap-y-1 text-sm sm:grid-cols-[12rem_minmax(0,1fr)] print:grid-cols-[11rem_minmax(0,1fr)]">
      {children}
    </dl>
  );
}

function Fact({ term, children, mono }: { term: string; children: ReactNode; mono?: boolean }) {
  return (
    <>
      <dt className={`${muted} sm:pt-px`}>{term}</dt>
      <dd className={`mb-1 min-w-0 break-words sm:mb-0 ${mono ? "font-mono text-xs break-all sm:pt-0.5" : ""}`}>
        {children}
      </dd>
    </>
  );
}

function H3({ children }: { children: ReactNode }) {
  return <h3 className="mt-4 mb-1.5 text-sm font-semibold print:break-after-avoid">{children}</h3>;
}

function Event({ e, n }: { e: BundleEvent; n: number }) {
  const badge = badgeInput({ status: e.status, lastOutcome: e.attempts.at(-1)?.outcome, transitions: e.timeline });
  return (
    <section
      data-event-id={e.eventId}
      data-bundle-event=""
      className={`${frame} min-w-0 px-4 py-4 print:px-0 print:py-0 ${n > 1 ? "print:break-before-page" : ""}`}
    >
      <h2 className="mb-3 flex flex-wrap items-center gap-2 text-base font-semibold">
        <span className="font-mono break-all">
          {n}. {e.source} / {e.eventId}
        </span>
        <EventStatusBadge {...badge} />
      </h2>
      <Facts>
        <Fact term="Type" mono>
          {e.eventType}
        </Fact>
        {e.lastError && <Fact term="Last error">{e.lastError}</Fact>}
        <Fact term="Happened (UTC)">
          {e.providerTime ? (
            <>
              <Time value={e.providerTime.at} ms /> <span className={muted}>({e.providerTime.field})</span>
            </>
          ) : (
            "—"
          )}
        </Fact>
        <Fact term="Received (UTC)">
          <Time value={e.receivedAt} ms />
        </Fact>
        {e.amount && (
          <Fact term="Amount">
            {e.amount.text} <span className={muted}>({e.amount.field})</span>
          </Fact>
        )}
        <Fact term="Signature scheme">
          {e.signature.kind ?? "unknown"}: {e.signature.description}
        </Fact>
        <Fact term="Signed timestamp">
          {e.signature.signedTimestamp ? (
            <>
              <Time value={e.signature.signedTimestamp.at} /> UTC{" "}
              <span className={muted}>
                ({e.signature.signedTimestamp.header} = {e.signature.signedTimestamp.unix})
              </span>
            </>
          ) : (
            "none: this provider signs no timestamp"
          )}
        </Fact>
        <Fact term="Verified at arrival with" mono>
          {e.verifiedAtArrival ?? "not recorded (a replayed event, or a row from before this was kept)"}
        </Fact>
        <Fact term="Verifies now">{checkWords(e.signatureCheckNow)}</Fact>
        <Fact term="SHA-256 stored" mono>
          {e.bodySha256.stored ?? "not stored (an older row)"}
        </Fact>
        <Fact term="SHA-256 recomputed" mono>
          {e.bodySha256.recomputed}{" "}
          <strong className="font-sans">
            {e.bodySha256.matches === null
              ? "(no stored hash to compare)"
              : e.bodySha256.matches
                ? "(matches)"
                : "(DOES NOT MATCH the stored hash)"}
          </strong>
        </Fact>
      </Facts>
      <H3>Headers as received</H3>
      <dl
        className={cn(
          "grid grid-cols-1 gap-x-4 rounded-md bg-muted/50 px-3 py-2 font-mono text-xs",
          "sm:grid-cols-[max-content_minmax(0,1fr)]",
          "print:bg-transparent print:px-0",
        )}
      >
        {Object.entries(e.headers)
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([k, v]) => (
            <div key={k} className="contents">
              <dt className={muted}>{k}</dt>
              <dd className="mb-1 min-w-0 break-all sm:mb-0">{v}</dd>
            </div>
          ))}
      </dl>
      <H3>Raw body, exactly as received</H3>
      <pre
        data-raw-body=""
        className={cn(
          "max-h-[28rem] overflow-auto rounded-md bg-muted/50 px-3 py-2 font-mono text-xs break-all whitespace-pre-wrap",
          "print:max-h-none print:overflow-visible print:border print:bg-transparent",
        )}
      >
        {e.rawBody}
      </pre>
      <H3>Deliveries ({e.deliveryCount})</H3>
      <ul className="flex flex-col gap-0.5 text-xs">
        {e.deliveries.map((d, i) => (
          <li key={i}>
            <Time value={d.receivedAt} ms /> UTC · {d.via} · {d.duplicate ? "duplicate" : "first: claimed"}
            {d.reprocessed ? " (reprocessed: shadow mode)" : ""}
          </li>
        ))}
      </ul>
      {e.deliveryCount > e.deliveries.length && (
        <p className={`text-xs ${muted}`}>The first {e.deliveries.length} are listed.</p>
      )}
      <H3>Attempts ({e.attemptCount})</H3>
      <ul className="flex flex-col gap-1 text-xs">
        {e.attempts.map((a) => (
          <li key={a.number} className="break-words">
            #{a.number} {a.trigger} · <Time value={a.startedAt} ms /> → <Time value={a.finishedAt} ms /> UTC ·{" "}
            {a.outcome}
            {a.error && <div className="break-words">{a.error}</div>}
          </li>
        ))}
        {e.attempts.length === 0 && <li>Not attempted yet.</li>}
      </ul>
      {e.timeline.length > 0 && (
        <>
          <H3>What it moved</H3>
          <div className="flex flex-col gap-2">
            {e.timeline.map((t, i) => (
              <div key={i} className="flex flex-col gap-0.5">
                <TransitionLine t={{ ...t, source: e.source }} />
                <span className={`text-xs ${muted}`}>
                  recorded <Time value={t.recordedAt} ms /> UTC
                </span>
              </div>
            ))}
          </div>
        </>
      )}
    </section>
  );
}

/** The dispute bundle as a printable page: the same content as the JSON download, audited the same way. */
export default async function PrintPage({ params }: { params: Promise<{ id: string }> }) {
  const parsed = subjectFromParam((await params).id);
  const path = parsed.ok ? `${subjectHref(parsed.subject)}/print` : "/events";
  const { db, actor } = await requirePage("events.read", path);
  if (!parsed.ok) return <InvalidSubject error={parsed.error} />;
  const doc = await buildDisputeBundle(
    db,
    actor,
    { subject: parsed.subject },
    { sourceOf: (slug) => sourcesFromEnv().find(slug), format: "print" },
  );
  return (
    <div className="mx-auto flex max-w-4xl flex-col gap-5 print:max-w-none print:gap-6 print:text-black">
      <p className="text-xs print:hidden">
        <Link href={subjectHref(doc.subject)} className="text-primary hover:underline">
          ← Back to the customer view
        </Link>
      </p>
      <div className="flex flex-wrap items-start justify-between gap-3">
        <h1 className="min-w-0 text-xl font-semibold tracking-tight break-words">
          Dispute bundle: <span className="font-mono break-all">{doc.subject}</span>
        </h1>
        <div className="print:hidden">
          <PrintButton />
        </div>
      </div>
      <BundleSummaryPage
        summary={doc.summary}
        className={`${frame} px-4 py-4 print:px-0 print:py-0 print:break-after-page`}
      />
      <h2 className="text-lg font-semibold tracking-tight">Appendix: the evidence</h2>
      <section className={`${frame} px-4 py-4 print:px-0 print:py-0`} aria-label="About this bundle">
        <Facts>
          <Fact term="Generated (UTC)">
            <Time value={doc.generatedAt} ms />
          </Fact>
          <Fact term="By" mono>
            {doc.generatedBy}
          </Fact>
          <Fact term="Events">
            {plural(doc.events.length, "event")}
            {doc.complete ? ": every event the ledger holds for this subject" : ""}
          </Fact>
          <Fact term="SHA-256" mono>
            {doc.sha256}
          </Fact>
        </Facts>
      </section>
      {doc.limits.map((l) => (
        <p key={l} role="status" className="rounded-lg border border-warning/40 bg-warning/10 px-4 py-3 text-sm">
          {l}
        </p>
      ))}
      {doc.omitted.length > 0 && (
        <ul className="flex flex-col gap-0.5 font-mono text-xs">
          {doc.omitted.map((o) => (
            <li key={`${o.source}/${o.eventId}`} className="break-all">
              left out: {o.source}/{o.eventId} ({o.bodyBytes.toLocaleString("en")} bytes): {o.reason}
            </li>
          ))}
        </ul>
      )}
      {doc.events.map((e, i) => (
        <Event key={`${e.source}/${e.eventId}`} e={e} n={i + 1} />
      ))}
    </div>
  );
}
