import { Time } from "@/components/time";
import { Badge } from "@/components/ui/badge";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import type { EventDetail } from "@/lib/ledger/event-detail";
import { isSignatureHeader } from "./format";
import { plural } from "@/lib/format/words";

export function HeadersTab({ detail, options }: { detail: EventDetail; options: unknown }) {
  const e = detail.event;
  const headers = Object.entries(e.headers).sort(([a], [b]) => a.localeCompare(b));
  return (
    <div className="flex min-w-0 flex-col gap-5">
      <section className="flex min-w-0 flex-col gap-2" aria-labelledby="stored-headers">
        <h3 id="stored-headers" className="text-sm font-semibold">
          Headers as received
        </h3>
        <p className="text-xs text-muted-foreground">
          Stored once, from the delivery that claimed the event (cookies and authorization left out). Duplicate
          deliveries&apos; headers are not stored.
        </p>
        {/* Name over value on phones, side by side from sm: a value (a signature) can be long. */}
        <dl className="divide-y rounded-lg border bg-card empty:hidden" data-headers="">
          {headers.map(([name, value]) => (
            <div
              key={name}
              data-header={name}
              className="grid grid-cols-1 gap-0.5 px-3 py-2 sm:grid-cols-[minmax(10rem,16rem)_1fr] sm:gap-4"
            >
              <dt className="font-mono text-xs text-muted-foreground [overflow-wrap:anywhere]">
                {name}
                {isSignatureHeader(name, options) && (
                  <Badge tone="info" className="ml-1.5 font-sans">
                    signature
                  </Badge>
                )}
              </dt>
              <dd className="font-mono text-xs break-all">{value}</dd>
            </div>
          ))}
        </dl>
        {headers.length === 0 && (
          <p className="rounded-lg border bg-card px-3 py-6 text-center text-sm text-muted-foreground">
            No headers were stored.
          </p>
        )}
      </section>
      <section className="flex min-w-0 flex-col gap-2" aria-labelledby="deliveries">
        <h3 id="deliveries" className="text-sm font-semibold">
          Deliveries
        </h3>
        <Table data-deliveries="">
          <TableHeader className="[&_th]:bg-transparent">
            <TableRow>
              <TableHead>Received (UTC)</TableHead>
              <TableHead>Result</TableHead>
              <TableHead className="hidden sm:table-cell">Headers</TableHead>
            </TableRow>
          </TableHeader>
          <TableBody>
            {detail.deliveries.map((x) => (
              <TableRow key={x.id} data-delivery={x.claimed ? "claimed" : "duplicate"}>
                <TableCell className="whitespace-nowrap font-mono text-xs">
                  <Time value={x.receivedAt} ms />
                  {x.via === "replay" && <span className="block font-sans text-muted-foreground">via replay</span>}
                </TableCell>
                <TableCell>
                  {x.claimed ? (
                    <Badge tone="success">first: claimed</Badge>
                  ) : (
                    <Badge tone="neutral">duplicate{x.reprocessed ? " (reprocessed: shadow mode)" : ""}</Badge>
                  )}
                  <span className="mt-1 block text-xs text-muted-foreground sm:hidden">
                    {x.claimed ? "headers above" : "headers not stored"}
                  </span>
                </TableCell>
                <TableCell className="hidden text-xs text-muted-foreground sm:table-cell">
                  {x.claimed ? "the ones above" : "not stored"}
                </TableCell>
              </TableRow>
            ))}
            {detail.deliveries.length === 0 && (
              <TableRow>
                <TableCell colSpan={3} className="py-6 text-center text-muted-foreground">
                  No delivery recorded: this row was written to the ledger directly, not through the receiver.
                </TableCell>
              </TableRow>
            )}
          </TableBody>
        </Table>
        {detail.deliveryCount > detail.deliveries.length && (
          <p className="text-xs text-muted-foreground">
            Showing {detail.deliveries.length} of {plural(detail.deliveryCount, "delivery", "deliveries")}: the first
            and the latest. Older duplicates are counted, not kept.
          </p>
        )}
      </section>
    </div>
  );
}
