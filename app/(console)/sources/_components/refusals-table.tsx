import { Time } from "@/components/time";
import { Badge } from "@/components/ui/badge";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import type { RefusalRow } from "@/lib/sources/refusals";
import { REFUSAL_WORDS } from "./format";

const size = (r: RefusalRow) => (r.size === null ? "—" : `${r.size.toLocaleString("en")} B`);

/** Refused deliveries as metadata: never a body, never a header's value (only which signature header came). */
export function RefusalsTable({ rows }: { rows: RefusalRow[] }) {
  if (rows.length === 0)
    return (
      <p className="rounded-lg border border-dashed p-6 text-center text-sm text-muted-foreground">
        No refused deliveries recorded.
      </p>
    );
  return (
    <Table aria-label="Recent refusals">
      <TableHeader>
        <TableRow>
          <TableHead>Time (UTC)</TableHead>
          <TableHead>Reason</TableHead>
          <TableHead from="md">Detail</TableHead>
          <TableHead from="sm" className="text-right">
            Status
          </TableHead>
          <TableHead from="lg" className="text-right">
            Size
          </TableHead>
          <TableHead from="lg">Signature header</TableHead>
          <TableHead from="lg">From</TableHead>
          <TableHead className="text-right">Count</TableHead>
        </TableRow>
      </TableHeader>
      <TableBody>
        {rows.map((r) => (
          <TableRow key={r.id} data-reason={r.reason}>
            <TableCell className="text-xs whitespace-nowrap">
              <Time value={r.at} />
            </TableCell>
            <TableCell label="Reason" className="min-w-36">
              <Badge tone="danger">{REFUSAL_WORDS[r.reason]}</Badge>
              {/* What the hidden columns say, under the reason on narrow screens. */}
              <div className="mt-1 flex flex-col gap-0.5 text-xs break-words text-muted-foreground lg:hidden">
                {r.detail && <span className="md:hidden">{r.detail}</span>}
                <span>
                  <span className="sm:hidden">HTTP {r.status} · </span>
                  {size(r)} · <span className="font-mono">{r.signatureHeader ?? "no signature header"}</span>
                  {r.remoteAddr && (
                    <>
                      {" "}
                      · from <span className="font-mono">{r.remoteAddr}</span>
                    </>
                  )}
                </span>
              </div>
            </TableCell>
            <TableCell from="md" className="max-w-md text-xs break-words">
              {r.detail}
            </TableCell>
            <TableCell from="sm" label="Status" className="text-right tabular-nums">
              {r.status}
            </TableCell>
            <TableCell from="lg" className="text-right whitespace-nowrap tabular-nums">
              {size(r)}
            </TableCell>
            <TableCell from="lg" className="font-mono text-xs">
              {r.signatureHeader ?? <span className="text-muted-foreground">none</span>}
            </TableCell>
            <TableCell from="lg" className="font-mono text-xs">
              {r.remoteAddr ?? <span className="text-muted-foreground">—</span>}
            </TableCell>
            <TableCell label="Count" className="text-right tabular-nums" data-count="count">
              {r.count.toLocaleString("en")}
            </TableCell>
          </TableRow>
        ))}
      </TableBody>
    </Table>
  );
}
