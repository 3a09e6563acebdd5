import type { Metadata } from "next";
import Link from "@/components/link";
import { ZodError } from "zod";
import { PageHeader } from "@/components/page-header";
import { buttonVariants } from "@/components/ui/button";
import { Time } from "@/components/time";
import { can } from "@/lib/roles";
import { expectedErrorMessage } from "@/lib/errors";
import { listEventTypes } from "@/lib/console/event-types";
import { listEvents, type EventPage } from "@/lib/console/list-events";
import { searchPayloads, type PayloadSearchInfo } from "@/lib/console/payload-search";
import { EVENT_STATUSES } from "@/lib/console/statuses";
import { sourcesFromEnv } from "@/lib/sources/from-env";
import { requirePage } from "../../_lib/session";
import { BulkRequeue } from "./_components/bulk-requeue";
import { EventsTable, type EventRowView } from "./_components/events-table";
import { EventsToolbar } from "./_components/events-toolbar";
import { NewEvents } from "./_components/new-events";
import { filterFromParams, one, sortFromParams, viewHref, type SearchParams } from "./_components/params";
import { plural } from "@/lib/format/words";

export const metadata: Metadata = { title: "Events" };

export default async function EventsPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const { db, actor } = await requirePage("events.read", "/events");
  const sp = await searchParams;
  const filter = filterFromParams(sp);
  const where = one(sp.where)?.trim() || undefined;
  let page: EventPage & { payload?: PayloadSearchInfo } = { rows: [] };
  let inputError: string | undefined;
  try {
    const input = { filter, sort: sortFromParams(sp), cursor: one(sp.cursor), back: one(sp.back) === "1" };
    page = where ? await searchPayloads(db, actor, { ...input, where }) : await listEvents(db, actor, input);
  } catch (err) {
    // A filter or condition that does not parse, a window too wide, a search past its time: said, not thrown.
    const message = err instanceof ZodError ? err.issues.map((i) => i.message).join("; ") : expectedErrorMessage(err);
    if (message === undefined) throw err;
    inputError = message;
  }
  const rows: EventRowView[] = page.rows.map((r) => ({ ...r, receivedAt: r.receivedAt.toISOString() }));
  const mayAct = can(actor.role, "events.requeue");
  const sources = (await sourcesFromEnv().list()).map((s) => s.slug);
  const types = await listEventTypes(db, actor);
  const filtered = where !== undefined || Object.values(filter).some((v) => v !== undefined && v !== "");
  // A search that matched no event by its id matched a customer/object id or email: offer everything about it.
  const q = filter.q?.trim();
  const subject = rows.find((r) => r.match && r.match.field !== "event id")?.match?.value;
  const asSubject =
    q && !inputError && rows.length > 0 && !rows.some((r) => r.eventId === q) ? (subject ?? q) : undefined;
  const firstPage = !one(sp.cursor) && sortFromParams(sp) === "received_desc";
  const pager = buttonVariants({ variant: "outline", size: "sm" });
  return (
    <>
      <PageHeader
        title="Events"
        description="Every verified delivery, newest first. Filter, search a customer, open one to read and prove it."
        actions={mayAct && !where && <BulkRequeue filter={filter} />}
      />
      <EventsToolbar sources={sources} statuses={EVENT_STATUSES} types={types} />
      {inputError && (
        <p
          className="mb-3 rounded-md border border-destructive/40 bg-destructive/10 px-3 py-2 text-sm text-destructive"
          role="alert"
        >
          {inputError}
        </p>
      )}
      {asSubject && (
        <p className="mb-3 text-sm">
          <Link className="text-primary hover:underline" href={`/subjects/${encodeURIComponent(asSubject)}`}>
            Everything about {asSubject} →
          </Link>
        </p>
      )}
      {page.payload && <PayloadSearchNote info={page.payload} />}
      {firstPage && !inputError && !where && <NewEvents filter={filter} head={page.headCursor} />}
      <EventsTable rows={rows} mayAct={mayAct} />
      <nav className="mt-3 flex flex-wrap items-center justify-between gap-2" aria-label="Pages">
        <span className="text-sm text-muted-foreground">
          {plural(rows.length, "event")} on this page{filtered ? " (filtered)" : ""}
        </span>
        <div className="flex gap-2">
          {page.prevCursor ? (
            <Link className={pager} href={viewHref(sp, { cursor: page.prevCursor, back: "1" })}>
              ← Newer
            </Link>
          ) : (
            <span className={`${pager} pointer-events-none opacity-50`} aria-disabled="true">
              ← Newer
            </span>
          )}
          {page.nextCursor ? (
            <Link className={pager} href={viewHref(sp, { cursor: page.nextCursor })}>
              Older →
            </Link>
          ) : (
            <span className={`${pager} pointer-events-none opacity-50`} aria-disabled="true">
              Older →
            </span>
          )}
        </div>
      </nav>
    </>
  );
}

/** What a payload search read: its window, how many events it examined and how many matched. */
function PayloadSearchNote({ info }: { info: PayloadSearchInfo }) {
  return (
    <p className="mb-3 text-sm break-words" role="status" data-payload-search="">
      Examined {plural(info.examined, "event")} received <Time value={info.from} /> to <Time value={info.to} /> UTC
      {info.defaulted ? " (the last 24 hours)" : ""}: {info.matched.toLocaleString("en")} matched{" "}
      <code className="font-mono text-xs break-all">{info.condition}</code>, in {(info.ms / 1000).toFixed(1)} s.
    </p>
  );
}
