import type { Metadata } from "next";
import Link from "next/link";
import { getSubjectView, SUBJECT_ENTITY_LIMIT, type SubjectEntity, type SubjectEvent } from "@/lib/ledger/subject";
import { sourcesFromEnv } from "@/lib/sources/from-env";
import { requirePage } from "../../../_lib/session";
import { entityHref, eventHref } from "../../events/_components/links";
import {
  ago,
  outcomeOf,
  plural,
  show,
  subjectFromParam,
  subjectHref,
  transitionWords,
  when,
} from "../_components/format";

export const metadata: Metadata = { title: "Customer" };

function EventCard({ e }: { e: SubjectEvent }) {
  const o = outcomeOf({ ...e, lastOutcome: e.lastAttempt?.outcome });
  const at = e.providerTime?.at ?? e.receivedAt;
  return (
    <li className="subject-event panel" data-event-id={e.eventId} data-source={e.source}>
      <div className="subject-event-head">
        <time className="mono" dateTime={at} title={ago(at)}>
          {when(at)}
        </time>
        <span className="badge">{e.source}</span>
        <span className="mono break">{e.eventType}</span>
        <span className={`badge ${o.tone}`}>{o.label}</span>
        {e.via === "replay" && <span className="badge">via replay</span>}
      </div>
      {o.detail && <p className="subject-detail error">{o.detail}</p>}
      <dl className="subject-facts">
        <dt>Event</dt>
        <dd className="mono break">
          <Link href={eventHref(e)}>{e.eventId}</Link>
        </dd>
        <dt>Happened (UTC)</dt>
        <dd className="mono">
          {e.providerTime ? (
            <>
              {when(e.providerTime.at)} <span className="muted">({e.providerTime.field})</span>
            </>
          ) : (
            <span className="muted">the provider gives no time: received time shown</span>
          )}
        </dd>
        <dt>Received (UTC)</dt>
        <dd className="mono" title={ago(e.receivedAt)}>
          {when(e.receivedAt)}
        </dd>
        {e.amount && (
          <>
            <dt>Amount</dt>
            <dd className="mono">
              {e.amount.value} {e.amount.currency} <span className="muted">({e.amount.field})</span>
            </dd>
          </>
        )}
        <dt>Delivered</dt>
        <dd>
          {plural(e.deliveries, "time")}
          {e.duplicates > 0 && <span className="muted"> ({plural(e.duplicates, "duplicate")})</span>}
        </dd>
        <dt>Attempts</dt>
        <dd>{e.attempts}</dd>
        <dt>Moved</dt>
        <dd>
          {e.transitions.length === 0 && !e.entity && <span className="muted">no entity</span>}
          {e.transitions.length === 0 && e.entity && (
            <Link className="mono break" href={entityHref(e.source, e.entity.type, e.entity.id)}>
              {e.entity.type} {e.entity.id}
            </Link>
          )}
          {e.transitions.map((t, i) => {
            const w = transitionWords(t);
            return (
              <div key={i} className="subject-moved">
                <Link className="mono break" href={entityHref(t.source, t.entityType, t.entityId)}>
                  {t.entityType} {t.entityId}
                </Link>{" "}
                <span className={`badge ${w.tone}`}>{w.label}</span>
                {t.version !== null && <span className="muted mono"> v{t.version}</span>}
                {Object.entries(t.changes).map(([k, c]) => (
                  <div key={k} className="mono break">
                    {k}: {JSON.stringify(c.from)} → {JSON.stringify(c.to)}
                  </div>
                ))}
                {t.note && <div className="muted break">{t.note}</div>}
              </div>
            );
          })}
        </dd>
      </dl>
    </li>
  );
}

function EntityCard({ x }: { x: SubjectEntity }) {
  return (
    <section className="panel subject-entity" data-entity={`${x.entityType}/${x.entityId}`}>
      <h3 className="flush">
        <Link className="mono break" href={entityHref(x.source, x.entityType, x.entityId)}>
          {x.entityType} {x.entityId}
        </Link>
      </h3>
      <p className="muted subject-entity-meta">
        {x.source}
        {x.current ? ` · v${x.current.version} since ${when(x.current.updatedAt)} UTC` : " · no version recorded"}
      </p>
      {x.untracked ? (
        <p className="muted">No handler keeps a record of {x.entityType}s: the events are the ledger&apos;s view.</p>
      ) : x.state.length === 0 ? (
        <p className="muted">No business row yet.</p>
      ) : (
        x.state.map((row, i) => (
          <dl key={i} className="subject-state">
            {Object.entries(row).map(([k, v]) => (
              <div key={k}>
                <dt className="mono">{k}</dt>
                <dd className="mono break">{show(v)}</dd>
              </div>
            ))}
          </dl>
        ))
      )}
    </section>
  );
}

export default async function SubjectPage({ params }: { params: Promise<{ id: string }> }) {
  const raw = (await params).id;
  const parsed = subjectFromParam(raw);
  const path = parsed.ok ? subjectHref(parsed.subject) : "/events";
  const { db, actor } = await requirePage("events.read", path);
  if (!parsed.ok)
    return (
      <p className="notice error" role="alert">
        {parsed.error}
      </p>
    );
  const v = await getSubjectView(db, actor, { subject: parsed.subject }, (slug) => sourcesFromEnv().find(slug));
  const sources = [...new Set(v.events.map((e) => e.source))].sort();
  return (
    <div className="subject-page">
      <p className="crumbs">
        <Link href="/events">Events</Link> / customer
      </p>
      <div className="page-head">
        <h1 className="mono break">{v.subject}</h1>
        {v.events.length > 0 && (
          <div className="actions subject-actions">
            <a className="button" href={`${path}/bundle`} download>
              Download dispute bundle (JSON)
            </a>
            <a className="button secondary" href={`${path}/print`}>
              Printable bundle
            </a>
          </div>
        )}
      </div>
      <p className="muted subject-summary">
        {v.events.length === 0
          ? "No event in the ledger mentions this id or email."
          : `${plural(v.events.length, "event")} from ${sources.join(", ")} · ${plural(v.entities.length, "entity", "entities")} moved`}{" "}
        <Link href={`/events?${new URLSearchParams({ q: v.subject }).toString()}`}>Search the ledger for it →</Link>
      </p>
      {v.found > v.events.length && (
        <p className="notice subject-limit" role="status">
          {v.capped
            ? `More than ${(v.found - 1).toLocaleString("en")} events mention this value: an id many events share (a price, a product), not one customer. Shown: the newest ${v.events.length} of those found first.`
            : `${v.found.toLocaleString("en")} events mention it; shown: the newest ${v.events.length}. Narrow the search on the events page for the rest.`}
        </p>
      )}
      {v.events.length > 0 && (
        <>
          <h2>Timeline, newest first</h2>
          <ol className="subject-timeline">
            {v.events.map((e) => (
              <EventCard key={`${e.source}/${e.eventId}`} e={e} />
            ))}
          </ol>
          <h2>Entities and their state now</h2>
          {v.entities.length === 0 && <p className="muted">These events moved no entity.</p>}
          <div className="subject-entities">
            {v.entities.map((x) => (
              <EntityCard key={`${x.source}/${x.entityType}/${x.entityId}`} x={x} />
            ))}
          </div>
          {v.entitiesCut && <p className="muted">Showing the first {SUBJECT_ENTITY_LIMIT} entities.</p>}
        </>
      )}
    </div>
  );
}
