"use client";

import { Columns3Icon } from "lucide-react";
import Link from "@/components/link";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useCallback, useMemo } from "react";
import { parseJson, useLocalStorage } from "@/components/use-local-storage";
import { createColumnHelper, rowSortingFeature, tableFeatures, type SortingState } from "@tanstack/react-table";
import { Breakable } from "@/components/breakable";
import { DataTable } from "@/components/data-table/data-table";
import { EventStatusBadge, type EventOutcome, type EventResolution } from "@/components/event-status";
import { TestBadge } from "@/components/test-badge";
import { Time } from "@/components/time";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import {
  DropdownMenu,
  DropdownMenuCheckboxItem,
  DropdownMenuContent,
  DropdownMenuLabel,
  DropdownMenuTrigger,
} from "@/components/ui/dropdown-menu";
import { entityHref, eventHref } from "./links";
import { RowActions } from "./row-actions";
import { useRowKeys } from "./use-row-keys";

export interface EventRowView {
  source: string;
  eventId: string;
  eventType: string;
  status: "claimed" | "processing" | "settled" | "failed" | "dead";
  outcome?: EventOutcome | null;
  resolution?: EventResolution | null;
  resolutionNote?: string | null;
  attempts: number;
  lastError: string | null;
  receivedAt: string;
  entityType: string | null;
  entityId: string | null;
  /** The provider's version of the entity (its time, in seconds or microseconds): shown as a date. */
  entityVersion?: number | null;
  via: string;
  /** Sent by the console's test button: never applied. */
  test?: boolean;
  /** For a search: which field of the payload matched. */
  match?: { field: string; value: string } | null;
}

const features = tableFeatures({ rowSortingFeature });
const col = createColumnHelper<typeof features, EventRowView>();
const keyOf = (r: { source: string; eventId: string }) => `${r.source}/${r.eventId}`;

/** A provider version is seconds (Stripe's created) or microseconds (ISO-derived, lib/providers/time.ts). */
const versionDate = (v: number) => (v > 1e14 ? Math.round(v / 1000) : v);

const OPTIONAL = {
  source: "Source",
  entity: "Entity",
  provider: "Provider time",
  attempts: "Attempts",
} as const;
type Optional = keyof typeof OPTIONAL;

// On phones the actions sit under the outcome (the Actions column would push the table wider than the screen).
const phoneActions = (r: EventRowView, mayAct: boolean) =>
  mayAct &&
  r.status !== "settled" &&
  r.status !== "processing" && (
    <div className="sm:hidden">
      <RowActions source={r.source} eventId={r.eventId} status={r.status} />
    </div>
  );

const columnsFor = (mayAct: boolean) => ({
  event: col.display({
    id: "event",
    header: "Event",
    cell: ({ row: { original: r } }) => (
      <div className="flex min-w-0 max-w-[22rem] flex-col gap-0.5">
        <span className="break-words font-mono text-xs font-medium">
          <Breakable text={r.eventType} />
        </span>
        <Link href={eventHref(r)} title={r.eventId} className="truncate font-mono text-xs text-primary hover:underline">
          {r.eventId}
        </Link>
        <span className="text-xs text-muted-foreground sm:hidden">
          <Time value={r.receivedAt} />
        </span>
        <span className="text-xs text-muted-foreground md:hidden">{r.source}</span>
        {r.match && (
          <span className="text-xs text-muted-foreground" data-match-field={r.match.field}>
            matched {r.match.field} <span className="font-mono text-foreground">{r.match.value}</span>
          </span>
        )}
      </div>
    ),
  }),
  received: col.accessor("receivedAt", {
    id: "received",
    header: "Received (UTC)",
    enableSorting: true,
    sortDescFirst: true,
    meta: { from: "sm", className: "whitespace-nowrap font-mono text-xs" },
    cell: (c) => <Time value={c.getValue()} />,
  }),
  source: col.accessor("source", {
    header: "Source",
    enableSorting: false,
    meta: { from: "md" },
    cell: (c) => <Badge tone="outline">{c.getValue()}</Badge>,
  }),
  entity: col.accessor("entityId", {
    id: "entity",
    header: "Entity",
    enableSorting: false,
    meta: { from: "lg", className: "max-w-48" },
    cell: ({ row: { original: r } }) =>
      r.entityType && r.entityId ? (
        <Link
          href={entityHref(r.source, r.entityType, r.entityId)}
          title={`${r.entityType} ${r.entityId}`}
          className="block truncate font-mono text-xs text-primary hover:underline"
        >
          {r.entityId}
        </Link>
      ) : (
        <span className="text-muted-foreground">—</span>
      ),
  }),
  provider: col.accessor("entityVersion", {
    id: "provider",
    header: "Provider time",
    enableSorting: false,
    meta: { from: "xl", className: "whitespace-nowrap font-mono text-xs" },
    cell: (c) => {
      const v = c.getValue();
      return typeof v === "number" ? <Time value={versionDate(v)} /> : <span className="text-muted-foreground">—</span>;
    },
  }),
  status: col.accessor("status", {
    header: "Outcome",
    enableSorting: false,
    cell: ({ row: { original: r } }) => (
      <div className="flex min-w-0 max-w-[20rem] flex-col items-start gap-1">
        <div className="flex flex-wrap gap-1">
          <EventStatusBadge status={r.status} outcome={r.outcome} resolution={r.resolution} test={r.test} />
          {r.via === "replay" && <Badge tone="outline">replay</Badge>}
          {r.test && <TestBadge />}
        </div>
        {r.resolutionNote && <span className="line-clamp-2 text-xs text-muted-foreground">“{r.resolutionNote}”</span>}
        {r.lastError && r.status !== "settled" && (
          <span className="line-clamp-2 break-words text-xs text-destructive" title={r.lastError}>
            {r.lastError}
          </span>
        )}
        {phoneActions(r, mayAct)}
      </div>
    ),
  }),
  attempts: col.accessor("attempts", {
    header: "Attempts",
    enableSorting: false,
    meta: { from: "lg", className: "text-right tabular-nums" },
  }),
  actions: col.display({
    id: "actions",
    header: "Actions",
    meta: { from: "sm" },
    cell: ({ row: { original: r } }) => <RowActions source={r.source} eventId={r.eventId} status={r.status} />,
  }),
});

const parseHidden = (raw: string): Set<Optional> => {
  const v = parseJson(raw, []);
  return new Set(Array.isArray(v) ? v.filter((x): x is Optional => typeof x === "string" && x in OPTIONAL) : []);
};

export function EventsTable({ rows, mayAct }: { rows: EventRowView[]; mayAct: boolean }) {
  const router = useRouter();
  const pathname = usePathname();
  const params = useSearchParams();
  const [hidden, setHidden] = useLocalStorage("ledger.events.hidden-columns", "[]", parseHidden);
  const toggle = (c: Optional) => {
    const next = new Set(hidden);
    if (next.has(c)) next.delete(c);
    else next.add(c);
    setHidden([...next]);
  };
  const sorting: SortingState = [{ id: "received", desc: params.get("sort") !== "received_asc" }];
  const onSortingChange = (next: SortingState) => {
    const q = new URLSearchParams(params.toString());
    q.delete("cursor");
    q.delete("back");
    if (next[0]?.desc === false) q.set("sort", "received_asc");
    else q.delete("sort");
    router.push(q.size ? `${pathname}?${q.toString()}` : pathname);
  };
  const hrefOf = useCallback(
    (key: string) => {
      const r = rows.find((x) => keyOf(x) === key);
      return r ? eventHref(r) : pathname;
    },
    [rows, pathname],
  );
  const active = useRowKeys(rows.map(keyOf), hrefOf);
  const columns = useMemo(() => columnsFor(mayAct), [mayAct]);
  const shown = [
    columns.event,
    columns.received,
    ...(["source", "entity", "provider"] as const).filter((c) => !hidden.has(c)).map((c) => columns[c]),
    columns.status,
    ...(hidden.has("attempts") ? [] : [columns.attempts]),
    ...(mayAct ? [columns.actions] : []),
  ];
  return (
    <div className="flex flex-col gap-2">
      <div className="flex items-center justify-between gap-2 text-xs text-muted-foreground">
        <span className="hidden sm:inline">
          <kbd className="rounded border px-1 font-mono">j</kbd> /{" "}
          <kbd className="rounded border px-1 font-mono">k</kbd> move,{" "}
          <kbd className="rounded border px-1 font-mono">Enter</kbd> opens,{" "}
          <kbd className="rounded border px-1 font-mono">/</kbd> searches
        </span>
        <DropdownMenu>
          <DropdownMenuTrigger asChild>
            <Button variant="ghost" size="sm" className="ml-auto">
              <Columns3Icon /> Columns
            </Button>
          </DropdownMenuTrigger>
          <DropdownMenuContent>
            <DropdownMenuLabel>Show columns (wide screens)</DropdownMenuLabel>
            {(Object.keys(OPTIONAL) as Optional[]).map((c) => (
              <DropdownMenuCheckboxItem
                key={c}
                checked={!hidden.has(c)}
                onCheckedChange={() => toggle(c)}
                onSelect={(e) => e.preventDefault()}
              >
                {OPTIONAL[c]}
              </DropdownMenuCheckboxItem>
            ))}
          </DropdownMenuContent>
        </DropdownMenu>
      </div>
      <DataTable
        features={features}
        columns={shown}
        data={rows}
        sorting={sorting}
        onSortingChange={onSortingChange}
        getRowId={keyOf}
        activeRowId={active}
        rowProps={(r) => ({ "data-event-id": r.eventId, "data-row-key": keyOf(r) })}
        empty="No events match this view."
        caption="Events, newest first"
      />
    </div>
  );
}
