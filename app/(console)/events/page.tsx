import type { Metadata } from "next";
import Link from "next/link";
import { can } from "@/lib/auth/roles";
import { listEvents } from "@/lib/ledger/queries";
import { EVENT_STATUSES, type EventStatus } from "@/lib/ledger/statuses";
import { requirePage } from "../../_lib/session";
import { EventActions } from "./event-actions";

export const metadata: Metadata = { title: "Events" };

type Search = { status?: string; after?: string; afterId?: string };

export default async function EventsPage({ searchParams }: { searchParams: Promise<Search> }) {
  const { db, actor } = await requirePage("events.read", "/events");
  const sp = await searchParams;
  const status = EVENT_STATUSES.find((s) => s === sp.status) as EventStatus | undefined;
  const { rows, nextCursor } = await listEvents(db, actor, {
    statuses: status ? [status] : undefined,
    after: sp.after && sp.afterId ? { receivedAt: sp.after, eventId: sp.afterId } : undefined,
  });
  const mayAct = can(actor.role, "events.requeue");
  return (
    <>
      <h1>Events</h1>
      <p className="muted">
        {status ? <>Status <span className={`badge ${status}`}>{status}</span> · <Link href="/events">all</Link></> : "Newest first."}
      </p>
      <table>
        <thead>
          <tr>
            <th>Received</th>
            <th>Source</th>
            <th>Event</th>
            <th>Type</th>
            <th>Status</th>
            <th className="num">Attempts</th>
            {mayAct && <th>Actions</th>}
          </tr>
        </thead>
        <tbody>
          {rows.map((e) => (
            <tr key={`${e.source}/${e.eventId}`} data-event-id={e.eventId}>
              <td className="mono nowrap">{e.receivedAt.toISOString().replace("T", " ").slice(0, 19)}</td>
              <td>{e.source}</td>
              <td className="mono">{e.eventId}</td>
              <td className="mono">{e.eventType}</td>
              <td>
                <span className={`badge ${e.status}`}>{e.status}</span>
                {e.lastError && <div className="error">{e.lastError}</div>}
              </td>
              <td className="num">{e.attempts}</td>
              {mayAct && (
                <td>
                  <EventActions source={e.source} eventId={e.eventId} status={e.status} />
                </td>
              )}
            </tr>
          ))}
          {rows.length === 0 && (
            <tr>
              <td colSpan={mayAct ? 7 : 6} className="muted">
                No events yet.
              </td>
            </tr>
          )}
        </tbody>
      </table>
      {nextCursor && (
        <p>
          <Link href={`/events?${new URLSearchParams({ ...(status ? { status } : {}), after: nextCursor.receivedAt, afterId: nextCursor.eventId }).toString()}`}>Older →</Link>
        </p>
      )}
    </>
  );
}
