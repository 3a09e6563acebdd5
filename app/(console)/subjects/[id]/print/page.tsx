import type { Metadata } from "next";
import Link from "next/link";
import { buildDisputeBundle, type BundleEvent } from "@/lib/ledger/dispute-bundle";
import type { SignatureCheck } from "@/lib/ledger/event-detail";
import { sourcesFromEnv } from "@/lib/sources/from-env";
import { requirePage } from "../../../../_lib/session";
import { outcomeOf, plural, subjectFromParam, subjectHref, transitionWords, when } from "../../_components/format";
import { PrintButton } from "../../_components/print-button";

export const metadata: Metadata = { title: "Dispute bundle" };

function checkWords(c: SignatureCheck): string {
  if (c.state === "verifies") return "yes: the stored body and headers verify with the source's current secret";
  if (c.state === "no-secret") return "not checked: no secret is configured for this source now";
  return `no: ${c.reason}`;
}

function Event({ e, n }: { e: BundleEvent; n: number }) {
  const o = outcomeOf({
    ...e,
    attempts: e.attemptCount,
    transitions: e.timeline,
    lastOutcome: e.attempts.at(-1)?.outcome,
  });
  return (
    <section className="bundle-event panel" data-event-id={e.eventId}>
      <h2 className="flush mono break">
        {n}. {e.source} / {e.eventId}
      </h2>
      <dl className="subject-facts">
        <dt>Type</dt>
        <dd className="mono break">{e.eventType}</dd>
        <dt>Outcome</dt>
        <dd>
          {o.label}
          {o.detail && <div className="break">{o.detail}</div>}
        </dd>
        <dt>Happened (UTC)</dt>
        <dd className="mono">{e.providerTime ? `${when(e.providerTime.at)} (${e.providerTime.field})` : "—"}</dd>
        <dt>Received (UTC)</dt>
        <dd className="mono">{when(e.receivedAt)}</dd>
        {e.amount && (
          <>
            <dt>Amount</dt>
            <dd className="mono">
              {e.amount.value} {e.amount.currency} ({e.amount.field})
            </dd>
          </>
        )}
        <dt>Signature scheme</dt>
        <dd className="break">
          {e.signature.kind ?? "unknown"}: {e.signature.description}
        </dd>
        <dt>Signed timestamp</dt>
        <dd className="mono break">
          {e.signature.signedTimestamp
            ? `${e.signature.signedTimestamp.unix} = ${when(e.signature.signedTimestamp.at)} UTC (${e.signature.signedTimestamp.header})`
            : "none: this provider signs no timestamp"}
        </dd>
        <dt>Verified at arrival with</dt>
        <dd className="mono break">
          {e.verifiedAtArrival ?? "not recorded (a replayed event, or a row from before this was kept)"}
        </dd>
        <dt>Verifies now</dt>
        <dd className="break">{checkWords(e.signatureCheckNow)}</dd>
        <dt>SHA-256 stored</dt>
        <dd className="mono break">{e.bodySha256.stored ?? "not stored (an older row)"}</dd>
        <dt>SHA-256 recomputed</dt>
        <dd className="mono break">
          {e.bodySha256.recomputed}{" "}
          <strong>
            {e.bodySha256.matches === null
              ? "(no stored hash to compare)"
              : e.bodySha256.matches
                ? "(matches)"
                : "(DOES NOT MATCH the stored hash)"}
          </strong>
        </dd>
      </dl>
      <h3>Headers as received</h3>
      <dl className="subject-state">
        {Object.entries(e.headers)
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([k, v]) => (
            <div key={k}>
              <dt className="mono">{k}</dt>
              <dd className="mono break">{v}</dd>
            </div>
          ))}
      </dl>
      <h3>Raw body, exactly as received</h3>
      <pre className="raw bundle-raw">{e.rawBody}</pre>
      <h3>Deliveries ({e.deliveryCount})</h3>
      <ul className="bundle-list mono">
        {e.deliveries.map((d, i) => (
          <li key={i}>
            {when(d.receivedAt)} UTC · {d.via} · {d.duplicate ? "duplicate" : "first: claimed"}
            {d.reprocessed ? " (reprocessed: shadow mode)" : ""}
          </li>
        ))}
      </ul>
      {e.deliveryCount > e.deliveries.length && <p className="muted">The first {e.deliveries.length} are listed.</p>}
      <h3>Attempts ({e.attemptCount})</h3>
      <ul className="bundle-list mono">
        {e.attempts.map((a) => (
          <li key={a.number}>
            #{a.number} {a.trigger} · {when(a.startedAt)} → {when(a.finishedAt)} UTC · {a.outcome}
            {a.error && <div className="break">{a.error}</div>}
          </li>
        ))}
        {e.attempts.length === 0 && <li>Not attempted yet.</li>}
      </ul>
      {e.timeline.length > 0 && (
        <>
          <h3>Timeline</h3>
          <ul className="bundle-list mono">
            {e.timeline.map((t, i) => (
              <li key={i} className="break">
                {t.entityType} {t.entityId}
                {t.version !== null && ` v${t.version}`} · {transitionWords(t).label} · {when(t.recordedAt)} UTC
                {Object.entries(t.changes).map(([k, c]) => (
                  <div key={k}>
                    {k}: {JSON.stringify(c.from)} → {JSON.stringify(c.to)}
                  </div>
                ))}
                {t.note && <div>{t.note}</div>}
              </li>
            ))}
          </ul>
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
  if (!parsed.ok)
    return (
      <p className="notice error" role="alert">
        {parsed.error}
      </p>
    );
  const doc = await buildDisputeBundle(
    db,
    actor,
    { subject: parsed.subject },
    { sourceOf: (slug) => sourcesFromEnv().find(slug), format: "print" },
  );
  return (
    <div className="subject-print">
      <p className="crumbs no-print">
        <Link href={subjectHref(doc.subject)}>← Back to the customer view</Link>
      </p>
      <div className="page-head">
        <h1 className="break">
          Dispute bundle: <span className="mono">{doc.subject}</span>
        </h1>
        <div className="actions subject-actions no-print">
          <PrintButton />
        </div>
      </div>
      <dl className="subject-facts panel">
        <dt>Generated (UTC)</dt>
        <dd className="mono">{when(doc.generatedAt)}</dd>
        <dt>By</dt>
        <dd className="mono break">{doc.generatedBy}</dd>
        <dt>Events</dt>
        <dd>
          {plural(doc.events.length, "event")}
          {doc.complete ? ": every event the ledger holds for this subject" : ""}
        </dd>
        <dt>SHA-256</dt>
        <dd className="break">{doc.sha256}</dd>
      </dl>
      {doc.limits.map((l) => (
        <p key={l} className="notice subject-limit" role="status">
          {l}
        </p>
      ))}
      {doc.omitted.length > 0 && (
        <ul className="bundle-list mono">
          {doc.omitted.map((o) => (
            <li key={`${o.source}/${o.eventId}`} className="break">
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
