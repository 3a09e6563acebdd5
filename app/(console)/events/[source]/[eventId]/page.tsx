import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { JsonViewer } from "@/components/json-viewer";
import { utc } from "@/components/utc";
import { can } from "@/lib/auth/roles";
import { getEventDetail, type EventDetail } from "@/lib/ledger/event-detail";
import { eventKeyFromParams } from "@/lib/ledger/params";
import { NotFoundError } from "@/lib/errors";
import { sourcesFromEnv } from "@/lib/sources/from-env";
import { requirePage } from "../../../../_lib/session";
import { entityHref, eventHref } from "../../_components/links";
import { EventActions } from "../../event-actions";

export const metadata: Metadata = { title: "Event" };

// The raw body keeps the provider's key order; jsonb (the payload column) sorts keys by length.
function asReceived(rawBody: string, payload: unknown): unknown {
  try {
    return JSON.parse(rawBody);
  } catch {
    return payload;
  }
}
const ms = (a: Date, b: Date) => `${Math.max(0, b.getTime() - a.getTime()).toLocaleString("en")} ms`;

function Signature({ check }: { check: EventDetail["signature"] }) {
  switch (check.state) {
    case "verifies":
      return <span className="badge ok">yes</span>;
    case "fails":
      return (
        <>
          <span className="badge dead">no</span> <span className="muted">{check.reason}</span>
        </>
      );
    case "unsigned":
      return (
        <>
          <span className="badge">not signed</span> <span className="muted">{check.reason}</span>
        </>
      );
    case "no-secret":
      return <span className="muted">no secret is configured for this source</span>;
  }
}

export default async function EventPage({ params }: { params: Promise<{ source: string; eventId: string }> }) {
  // An unknown source, or an id no row can have (NUL, not UTF-8, over 255 characters): not found, before any query.
  const key = eventKeyFromParams(await params);
  const path = key.ok ? eventHref(key.value) : "/events";
  const { db, actor } = await requirePage("events.read", path);
  if (!key.ok) notFound();
  const { source, eventId } = key.value;
  let d: EventDetail;
  try {
    d = await getEventDetail(db, actor, { source, eventId }, (slug) => sourcesFromEnv().find(slug));
  } catch (err) {
    if (err instanceof NotFoundError) notFound();
    throw err;
  }
  const e = d.event;
  const mayAct = can(actor.role, "events.requeue");
  return (
    <>
      <p className="crumbs">
        <Link href="/events">Events</Link> / {e.source}
      </p>
      <div className="page-head">
        <h1 className="mono break">{e.eventId}</h1>
        <div className="actions">
          {mayAct && <EventActions source={e.source} eventId={e.eventId} status={e.status} />}
          <a className="button secondary" href={`${path}/export`} download>
            Download JSON
          </a>
        </div>
      </div>
      <dl className="facts panel">
        <dt>Type</dt>
        <dd className="mono">{e.eventType}</dd>
        <dt>Status</dt>
        <dd>
          <span className={`badge ${e.status}`}>{e.status}</span>{" "}
          {e.via === "replay" && <span className="badge">via replay</span>}
          {e.lastError && <div className="error">{e.lastError}</div>}
        </dd>
        <dt>Received</dt>
        <dd className="mono">{utc(e.receivedAt, { ms: true })}</dd>
        <dt>Settled</dt>
        <dd className="mono">{utc(e.settledAt, { ms: true })}</dd>
        <dt>Attempts</dt>
        <dd>{e.attempts}</dd>
        <dt>Delivered</dt>
        <dd>
          {d.deliveryCount} time{d.deliveryCount === 1 ? "" : "s"}
          {d.deliveryCount > 1 && (
            <span className="muted">
              {" "}
              ({d.deliveryCount - 1} duplicate{d.deliveryCount === 2 ? "" : "s"})
            </span>
          )}
        </dd>
        <dt>Entity</dt>
        <dd>
          {e.entityType && e.entityId ? (
            <Link className="mono" href={entityHref(e.source, e.entityType, e.entityId)}>
              {e.entityType} {e.entityId}
            </Link>
          ) : (
            <span className="muted">none</span>
          )}
          {e.entityVersion !== null && <span className="muted"> · version {e.entityVersion}</span>}
          {e.intakeNote && <div className="error">At intake: {e.intakeNote}</div>}
        </dd>
        <dt>Signature verifies with the current secret</dt>
        <dd>
          <Signature check={d.signature} />
        </dd>
      </dl>

      <h2>Payload</h2>
      <div className="panel">
        <JsonViewer value={asReceived(e.rawBody, e.payload)} />
      </div>

      <h2>Attempts</h2>
      <table>
        <thead>
          <tr>
            <th>#</th>
            <th>Trigger</th>
            <th>Actor</th>
            <th>Started (UTC)</th>
            <th className="num">Duration</th>
            <th>Outcome</th>
            <th>Error</th>
          </tr>
        </thead>
        <tbody>
          {d.attempts.map((a) => (
            <tr key={a.id}>
              <td className="num">{a.number}</td>
              <td>{a.trigger}</td>
              <td className="mono">{a.actor}</td>
              <td className="mono nowrap">{utc(a.startedAt, { ms: true })}</td>
              <td className="num">{ms(a.startedAt, a.finishedAt)}</td>
              <td>
                <span className={`badge ${a.outcome === "settled" ? "ok" : a.outcome}`}>{a.outcome}</span>
              </td>
              <td className="error-cell">{a.error}</td>
            </tr>
          ))}
          {d.attempts.length === 0 && (
            <tr>
              <td colSpan={7} className="muted empty">
                Not attempted yet.
              </td>
            </tr>
          )}
        </tbody>
      </table>

      {d.transitions.length > 0 && (
        <>
          <h2>What it changed</h2>
          <table>
            <thead>
              <tr>
                <th>Entity</th>
                <th className="num">Version</th>
                <th>Outcome</th>
                <th>Changes</th>
              </tr>
            </thead>
            <tbody>
              {d.transitions.map((t) => (
                <tr key={t.id}>
                  <td className="mono">
                    <Link href={entityHref(t.source, t.entityType, t.entityId)}>
                      {t.entityType} {t.entityId}
                    </Link>
                  </td>
                  <td className="num mono">{t.version ?? "—"}</td>
                  <td>
                    <span className={`badge ${t.outcome}`}>
                      {t.outcome === "tie" ? "tie: not decided" : t.outcome}
                      {t.resolution === "chain" && " · ordered by chain evidence"}
                      {t.resolution === "provider-api" && " · resolved from the provider's API"}
                      {t.resolution === "by-hand" && " · decided by a person"}
                    </span>
                  </td>
                  <td className="mono break changes">
                    {Object.entries(t.changes)
                      .map(([k, c]) => `${k}: ${JSON.stringify(c.from)} → ${JSON.stringify(c.to)}`)
                      .join("; ") || "—"}
                    {t.note && <div className="muted">{t.note}</div>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}

      <h2>Deliveries</h2>
      <table>
        <thead>
          <tr>
            <th>Received (UTC)</th>
            <th>Via</th>
            <th>Result</th>
          </tr>
        </thead>
        <tbody>
          {d.deliveries.map((x) => (
            <tr key={x.id}>
              <td className="mono nowrap">{utc(x.receivedAt, { ms: true })}</td>
              <td>{x.via}</td>
              <td>
                {x.claimed ? (
                  <span className="badge ok">first: claimed</span>
                ) : (
                  <span className="badge">duplicate{x.reprocessed ? " (reprocessed: shadow mode)" : ""}</span>
                )}
              </td>
            </tr>
          ))}
          {d.deliveries.length === 0 && (
            <tr>
              <td colSpan={3} className="muted empty">
                No delivery recorded: this row was written to the ledger directly, not through the receiver.
              </td>
            </tr>
          )}
        </tbody>
      </table>
      {d.deliveryCount > d.deliveries.length && (
        <p className="muted">
          Showing the first {d.deliveries.length} of {d.deliveryCount} deliveries.
        </p>
      )}

      <h2>Headers as received</h2>
      <table className="kv">
        <tbody>
          {Object.entries(e.headers)
            .sort(([a], [b]) => a.localeCompare(b))
            .map(([k, v]) => (
              <tr key={k}>
                <th className="mono">{k}</th>
                <td className="mono break">{v}</td>
              </tr>
            ))}
          {Object.keys(e.headers).length === 0 && (
            <tr>
              <td className="muted empty">No headers were stored.</td>
            </tr>
          )}
        </tbody>
      </table>

      <h2>Raw body</h2>
      <pre className="raw panel">{e.rawBody}</pre>
    </>
  );
}
