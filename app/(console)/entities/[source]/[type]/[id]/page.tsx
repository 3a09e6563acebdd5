import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { utc } from "@/components/utc";
import { can } from "@/lib/auth/roles";
import { getEntityTimeline, type TimelineEntry } from "@/lib/ledger/entity-timeline";
import { isSourceSlug } from "@/lib/ledger/params";
import { requirePage } from "../../../../../_lib/session";
import { show } from "../../../../subjects/_components/format";
import { ApplyTieButton } from "../../../../events/_components/apply-tie-button";
import { eventHref, segment } from "../../../../events/_components/links";

/** An outcome in the words support uses: what happened to the event, and, for a tie, who decided. */
function outcomeLabel(e: TimelineEntry): string {
  if (e.outcome === "pending") return `not applied yet (${e.eventStatus})`;
  if (e.outcome === "tie") return "tie: not decided";
  const by =
    e.resolution === "chain"
      ? " (tie ordered by the events' own evidence)"
      : e.resolution === "provider-api"
        ? " (tie resolved from the provider's API)"
        : e.resolution === "by-hand"
          ? " (tie decided by a person)"
          : "";
  return `${e.outcome === "applied" ? "applied" : "stale"}${by}`;
}

export const metadata: Metadata = { title: "Entity" };

export default async function EntityPage({
  params,
}: {
  params: Promise<{ source: string; type: string; id: string }>;
}) {
  const p = await params;
  const [type, id] = [segment(p.type), segment(p.id)];
  const path = `/entities/${encodeURIComponent(p.source)}/${encodeURIComponent(type)}/${encodeURIComponent(id)}`;
  const { db, actor } = await requirePage("events.read", path);
  if (!isSourceSlug(p.source)) notFound();
  const t = await getEntityTimeline(db, actor, { source: p.source, entityType: type, entityId: id });
  if (t.entries.length === 0 && !t.current) notFound();
  const search = `/events?${new URLSearchParams({ q: id }).toString()}`;
  const mayDecide = can(actor.role, "events.apply-tie");
  // A tie is open until a later row applies the same event by hand.
  const decided = new Set(t.entries.filter((e) => e.resolution === "by-hand").map((e) => e.eventId));
  return (
    <>
      <p className="crumbs">
        <Link href="/events">Events</Link> / {t.source} / {t.entityType}
      </p>
      <div className="page-head">
        <h1 className="mono break">{t.entityId}</h1>
        <p className="subject-links">
          <Link href={search}>Every event that mentions it →</Link>
          <Link href={`/subjects/${encodeURIComponent(id)}`}>Everything about {id} →</Link>
        </p>
      </div>
      <div className="two-col">
        <dl className="facts panel">
          <dt>Source</dt>
          <dd>{t.source}</dd>
          <dt>Type</dt>
          <dd>{t.entityType}</dd>
          <dt>Current version</dt>
          <dd className="mono">{t.current ? t.current.version : "none applied yet"}</dd>
          <dt>Set by</dt>
          <dd className="mono">
            {t.current ? (
              <Link href={eventHref({ source: t.source, eventId: t.current.eventId })}>{t.current.eventId}</Link>
            ) : (
              "—"
            )}
          </dd>
          <dt>Updated (UTC)</dt>
          <dd className="mono">{utc(t.current?.updatedAt, { ms: true })}</dd>
        </dl>
        <div className="panel">
          <h2 className="flush">Current state</h2>
          {t.state ? (
            <table className="kv">
              <tbody>
                {Object.entries(t.state).map(([k, v]) => (
                  <tr key={k}>
                    <th className="mono">{k}</th>
                    <td className="mono break">{show(v)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : (
            <p className="muted">
              No handler keeps a record of {t.entityType}s; the timeline below is the ledger&apos;s view.
            </p>
          )}
        </div>
      </div>

      <h2>Timeline, newest first</h2>
      <table>
        <thead>
          <tr>
            <th>When (UTC)</th>
            <th>Event</th>
            <th>Type</th>
            <th className="num">Version</th>
            <th>Outcome</th>
            <th>What changed</th>
          </tr>
        </thead>
        <tbody>
          {t.entries.map((e, i) => (
            <tr key={`${e.eventId}-${i}`} data-event-id={e.eventId}>
              <td className="mono nowrap">{utc(e.recordedAt ?? e.receivedAt, { ms: true })}</td>
              <td className="mono clip">
                <Link href={eventHref({ source: t.source, eventId: e.eventId })}>{e.eventId}</Link>
              </td>
              <td className="mono">{e.eventType}</td>
              <td className="num mono">{e.version ?? "—"}</td>
              <td>
                <span className={`badge ${e.outcome === "pending" ? e.eventStatus : e.outcome}`}>
                  {outcomeLabel(e)}
                </span>
                {e.outcome === "tie" && mayDecide && !decided.has(e.eventId) && (
                  <ApplyTieButton source={t.source} eventId={e.eventId} keptEventId={e.priorEventId} />
                )}
              </td>
              <td className="mono break changes">
                {Object.entries(e.changes).map(([k, c]) => (
                  <div key={k}>
                    {k}: {JSON.stringify(c.from)} → {JSON.stringify(c.to)}
                  </div>
                ))}
                {e.note && <div className="muted">{e.note}</div>}
                {Object.keys(e.changes).length === 0 && !e.note && <span className="muted">—</span>}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
