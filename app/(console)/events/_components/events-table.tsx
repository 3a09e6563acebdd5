"use client";

import Link from "next/link";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { createColumnHelper, rowSortingFeature, tableFeatures, type SortingState } from "@tanstack/react-table";
import { DataTable } from "@/components/data-table/data-table";
import { utc } from "@/components/utc";
import { EventActions } from "../event-actions";
import { entityHref, eventHref } from "./links";

export interface EventRowView {
  source: string;
  eventId: string;
  eventType: string;
  status: string;
  attempts: number;
  lastError: string | null;
  receivedAt: string;
  entityType: string | null;
  entityId: string | null;
  via: string;
}

const features = tableFeatures({ rowSortingFeature });
const col = createColumnHelper<typeof features, EventRowView>();

const baseColumns = [
  col.accessor("receivedAt", {
    id: "received",
    header: "Received (UTC)",
    enableSorting: true,
    sortDescFirst: true,
    meta: { className: "nowrap mono" },
    cell: (c) => utc(c.getValue()),
  }),
  col.accessor("source", { header: "Source", enableSorting: false }),
  col.accessor("eventId", {
    header: "Event",
    enableSorting: false,
    meta: { className: "mono clip" },
    cell: (c) => (
      <Link href={eventHref(c.row.original)} title={c.getValue()}>
        {c.getValue()}
      </Link>
    ),
  }),
  col.accessor("eventType", { header: "Type", enableSorting: false, meta: { className: "mono" } }),
  col.accessor("entityId", {
    header: "Entity",
    enableSorting: false,
    meta: { className: "mono clip" },
    cell: (c) => {
      const r = c.row.original;
      return r.entityType && r.entityId ? (
        <Link href={entityHref(r.source, r.entityType, r.entityId)} title={`${r.entityType} ${r.entityId}`}>
          {r.entityId}
        </Link>
      ) : (
        <span className="muted">—</span>
      );
    },
  }),
  col.accessor("status", {
    header: "Status",
    enableSorting: false,
    cell: (c) => (
      <>
        <span className={`badge ${c.getValue()}`}>{c.getValue()}</span>
        {c.row.original.via === "replay" && <span className="badge">replay</span>}
        {c.row.original.lastError && c.getValue() !== "settled" && (
          <div className="error" title={c.row.original.lastError}>
            {c.row.original.lastError}
          </div>
        )}
      </>
    ),
  }),
  col.accessor("attempts", { header: "Attempts", enableSorting: false, meta: { className: "num" } }),
];
const actionColumn = col.display({
  id: "actions",
  header: "Actions",
  cell: (c) => (
    <EventActions source={c.row.original.source} eventId={c.row.original.eventId} status={c.row.original.status} />
  ),
});
const columnsWithActions = [...baseColumns, actionColumn];

export function EventsTable({ rows, mayAct }: { rows: EventRowView[]; mayAct: boolean }) {
  const router = useRouter();
  const pathname = usePathname();
  const params = useSearchParams();
  const sorting: SortingState = [{ id: "received", desc: params.get("sort") !== "received_asc" }];
  const onSortingChange = (next: SortingState) => {
    const q = new URLSearchParams(params.toString());
    q.delete("cursor");
    q.delete("back");
    if (next[0]?.desc === false) q.set("sort", "received_asc");
    else q.delete("sort");
    router.push(q.size ? `${pathname}?${q.toString()}` : pathname);
  };
  return (
    <DataTable
      features={features}
      columns={mayAct ? columnsWithActions : baseColumns}
      data={rows}
      sorting={sorting}
      onSortingChange={onSortingChange}
      getRowId={(r) => `${r.source}/${r.eventId}`}
      rowProps={(r) => ({ "data-event-id": r.eventId })}
      empty="No events match."
    />
  );
}
