"use client";

import { ArrowDownIcon, ArrowUpDownIcon, ArrowUpIcon } from "lucide-react";
import type { ReactNode } from "react";
import { useTable, type ColumnDef, type RowData, type SortingState, type TableFeatures } from "@tanstack/react-table";
import { cn } from "@/components/ui/cn";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow, type Breakpoint } from "@/components/ui/table";

/**
 * Per column: `from` shows a secondary column only from that width (its facts belong in the first column's
 * cell below it); `label` names it in a phone's card when the header is not plain text.
 */
export interface ColumnMeta {
  className?: string;
  from?: Breakpoint;
  label?: string;
}

/**
 * A server-paged table: rows arrive already filtered, sorted and paged by the server (URL state);
 * TanStack Table supplies the header/cell model and the sort toggles, which report back through onSort.
 */
export function DataTable<TFeatures extends TableFeatures, TData extends RowData>({
  features,
  columns,
  data,
  sorting,
  onSortingChange,
  getRowId,
  empty,
  rowProps,
  activeRowId,
  caption,
}: {
  features: TFeatures;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each column has its own value type
  columns: ColumnDef<TFeatures, TData, any>[];
  data: TData[];
  sorting?: SortingState;
  onSortingChange?: (next: SortingState) => void;
  getRowId: (row: TData) => string;
  empty: ReactNode;
  rowProps?: (row: TData) => Record<string, string>;
  /** The keyboard's current row (j/k): marked selected and scrolled into view by the caller. */
  activeRowId?: string;
  caption?: string;
}) {
  const table = useTable({
    features,
    columns,
    data,
    getRowId,
    manualSorting: true,
    enableSortingRemoval: false,
    state: sorting ? { sorting } : undefined,
    onSortingChange: (updater: SortingState | ((old: SortingState) => SortingState)) =>
      onSortingChange?.(typeof updater === "function" ? updater(sorting ?? []) : updater),
  } as unknown as Parameters<typeof useTable<TFeatures, TData>>[0]);
  const rows = table.getRowModel().rows;
  const meta = (c: { columnDef: { meta?: unknown } }) => (c.columnDef.meta as ColumnMeta | undefined) ?? {};
  // The first column is a card's title on phones; every other one is a line named by its header.
  const labelOf = (c: { id: string; columnDef: { meta?: unknown; header?: unknown } }, i: number) =>
    i === 0 ? undefined : (meta(c).label ?? (typeof c.columnDef.header === "string" ? c.columnDef.header : undefined));
  return (
    <Table>
      {caption && <caption className="sr-only">{caption}</caption>}
      <TableHeader>
        {table.getHeaderGroups().map((group) => (
          <TableRow key={group.id} className="hover:bg-transparent">
            {group.headers.map((header) => {
              const col = header.column as unknown as {
                getCanSort?: () => boolean;
                getIsSorted?: () => false | "asc" | "desc";
                getToggleSortingHandler?: () => ((e: unknown) => void) | undefined;
              };
              const sorted = col.getIsSorted?.() ?? false;
              const canSort = col.getCanSort?.() ?? false;
              const Icon = sorted === "asc" ? ArrowUpIcon : sorted === "desc" ? ArrowDownIcon : ArrowUpDownIcon;
              return (
                <TableHead
                  key={header.id}
                  aria-sort={sorted === "asc" ? "ascending" : sorted === "desc" ? "descending" : undefined}
                  className={meta(header.column).className}
                  from={meta(header.column).from}
                >
                  {header.isPlaceholder ? null : canSort ? (
                    <button
                      type="button"
                      className="-ml-1 inline-flex cursor-pointer items-center gap-1 rounded px-1 hover:text-foreground"
                      onClick={col.getToggleSortingHandler?.()}
                    >
                      <table.FlexRender header={header} />
                      <Icon aria-hidden="true" className="size-3.5" />
                    </button>
                  ) : (
                    <table.FlexRender header={header} />
                  )}
                </TableHead>
              );
            })}
          </TableRow>
        ))}
      </TableHeader>
      <TableBody>
        {rows.map((row) => (
          <TableRow
            key={row.id}
            data-state={row.id === activeRowId ? "selected" : undefined}
            aria-selected={activeRowId === undefined ? undefined : row.id === activeRowId}
            {...rowProps?.(row.original)}
          >
            {row.getAllCells().map((cell, i) => (
              <TableCell
                key={cell.id}
                className={cn(meta(cell.column).className)}
                from={meta(cell.column).from}
                label={labelOf(cell.column, i)}
              >
                <table.FlexRender cell={cell} />
              </TableCell>
            ))}
          </TableRow>
        ))}
        {rows.length === 0 && (
          <TableRow className="hover:bg-transparent">
            <TableCell colSpan={columns.length} className="py-10 text-center text-muted-foreground">
              {empty}
            </TableCell>
          </TableRow>
        )}
      </TableBody>
    </Table>
  );
}
