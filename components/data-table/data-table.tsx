"use client";

import type { ReactNode } from "react";
import { useTable, type ColumnDef, type RowData, type SortingState, type TableFeatures } from "@tanstack/react-table";

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
  return (
    <div className="table-wrap">
      <table className="data">
        <thead>
          {table.getHeaderGroups().map((group) => (
            <tr key={group.id}>
              {group.headers.map((header) => {
                const col = header.column as unknown as {
                  getCanSort?: () => boolean;
                  getIsSorted?: () => false | "asc" | "desc";
                  getToggleSortingHandler?: () => ((e: unknown) => void) | undefined;
                };
                const sorted = col.getIsSorted?.() ?? false;
                const canSort = col.getCanSort?.() ?? false;
                return (
                  <th
                    key={header.id}
                    aria-sort={sorted === "asc" ? "ascending" : sorted === "desc" ? "descending" : undefined}
                    className={(header.column.columnDef.meta as { className?: string } | undefined)?.className}
                  >
                    {header.isPlaceholder ? null : canSort ? (
                      <button type="button" className="sort" onClick={col.getToggleSortingHandler?.()}>
                        <table.FlexRender header={header} />
                        <span aria-hidden="true">{sorted === "asc" ? " ▲" : sorted === "desc" ? " ▼" : " ↕"}</span>
                      </button>
                    ) : (
                      <table.FlexRender header={header} />
                    )}
                  </th>
                );
              })}
            </tr>
          ))}
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.id} {...rowProps?.(row.original)}>
              {row.getAllCells().map((cell) => (
                <td
                  key={cell.id}
                  className={(cell.column.columnDef.meta as { className?: string } | undefined)?.className}
                >
                  <table.FlexRender cell={cell} />
                </td>
              ))}
            </tr>
          ))}
          {rows.length === 0 && (
            <tr>
              <td colSpan={columns.length} className="muted empty">
                {empty}
              </td>
            </tr>
          )}
        </tbody>
      </table>
    </div>
  );
}
