import type { Metadata } from "next";
import Link from "next/link";
import { ZodError } from "zod";
import { can } from "@/lib/auth/roles";
import { listEvents, type EventPage } from "@/lib/ledger/list-events";
import { sourcesFromEnv } from "@/lib/sources/from-env";
import { requirePage } from "../../_lib/session";
import { BulkRequeue } from "./_components/bulk-requeue";
import { EventsTable, type EventRowView } from "./_components/events-table";
import { EventsToolbar } from "./_components/events-toolbar";
import { filterFromParams, one, sortFromParams, viewHref, type SearchParams } from "./_components/params";

export const metadata: Metadata = { title: "Events" };

export default async function EventsPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const { db, actor } = await requirePage("events.read", "/events");
  const sp = await searchParams;
  const filter = filterFromParams(sp);
  let page: EventPage = { rows: [] };
  let inputError: string | undefined;
  try {
    page = await listEvents(db, actor, {
      filter,
      sort: sortFromParams(sp),
      cursor: one(sp.cursor),
      back: one(sp.back) === "1",
    });
  } catch (err) {
    if (!(err instanceof ZodError)) throw err;
    inputError = err.issues.map((i) => i.message).join("; ");
  }
  const rows: EventRowView[] = page.rows.map((r) => ({ ...r, receivedAt: r.receivedAt.toISOString() }));
  const mayAct = can(actor.role, "events.requeue");
  const sources = (await sourcesFromEnv().list()).map((s) => s.slug);
  const filtered = Object.values(filter).some((v) => v !== undefined && v !== "");
  // A search that matched no event by its id matched a customer/object id or email: offer everything about it.
  const q = filter.q?.trim();
  const asSubject = q && !inputError && rows.length > 0 && !rows.some((r) => r.eventId === q) ? q : undefined;
  return (
    <>
      <div className="page-head">
        <h1>Events</h1>
        {mayAct && <BulkRequeue filter={filter} />}
      </div>
      <EventsToolbar sp={sp} sources={sources} />
      {inputError && (
        <p className="notice error" role="alert">
          {inputError}
        </p>
      )}
      {asSubject && (
        <p className="subject-links">
          <Link href={`/subjects/${encodeURIComponent(asSubject)}`}>Everything about {asSubject} →</Link>
        </p>
      )}
      <EventsTable rows={rows} mayAct={mayAct} />
      <nav className="pager" aria-label="Pages">
        <span className="muted">
          {rows.length} event{rows.length === 1 ? "" : "s"} on this page{filtered ? " (filtered)" : ""}
        </span>
        {page.prevCursor ? (
          <Link href={viewHref(sp, { cursor: page.prevCursor, back: "1" })}>← Newer</Link>
        ) : (
          <span className="muted">← Newer</span>
        )}
        {page.nextCursor ? (
          <Link href={viewHref(sp, { cursor: page.nextCursor })}>Older →</Link>
        ) : (
          <span className="muted">Older →</span>
        )}
      </nav>
    </>
  );
}
