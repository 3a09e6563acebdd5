import Link from "@/components/link";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import type { FailingType } from "@/lib/console/overview";
import { SectionHead } from "./section-head";

const listHref = (f: FailingType) =>
  `/events?${new URLSearchParams({ source: f.source, type: f.eventType, status: "failed,dead" }).toString()}`;

/** The event types failing most, each a link to its failed and dead events. */
export function FailingTypes({ rows }: { rows: FailingType[] }) {
  return (
    <section aria-labelledby="failing-most" className="min-w-0">
      <SectionHead
        title={<span id="failing-most">Failing most</span>}
        description="Failed (retrying) and dead events by type"
        actions={
          <Link href="/failures" className="text-primary hover:underline">
            Failures →
          </Link>
        }
      />
      <Table>
        <TableHeader>
          <TableRow>
            <TableHead>Type</TableHead>
            <TableHead from="sm">Source</TableHead>
            <TableHead className="text-right">Retrying</TableHead>
            <TableHead className="text-right">Dead</TableHead>
          </TableRow>
        </TableHeader>
        <TableBody>
          {rows.map((f) => (
            <TableRow key={`${f.source}/${f.eventType}`}>
              <TableCell className="font-mono text-xs break-all">
                <Link href={listHref(f)} className="text-primary hover:underline">
                  {f.eventType}
                </Link>
                <div className="mt-0.5 font-sans text-muted-foreground sm:hidden">{f.source}</div>
              </TableCell>
              <TableCell from="sm" label="Source">
                {f.source}
              </TableCell>
              <TableCell label="Retrying" className="text-right tabular-nums">
                {f.failed.toLocaleString("en")}
              </TableCell>
              <TableCell label="Dead" className="text-right tabular-nums">
                {f.dead.toLocaleString("en")}
              </TableCell>
            </TableRow>
          ))}
          {rows.length === 0 && (
            <TableRow>
              <TableCell colSpan={4} className="py-6 text-center text-muted-foreground">
                Nothing failing.
              </TableCell>
            </TableRow>
          )}
        </TableBody>
      </Table>
    </section>
  );
}
