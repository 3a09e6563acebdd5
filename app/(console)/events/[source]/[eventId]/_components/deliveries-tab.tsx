import { Time } from "@/components/time";
import { Badge } from "@/components/ui/badge";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import type { EventDetail } from "@/lib/console/event-detail";
import { plural } from "@/lib/format/words";

/** Every time the provider sent this event: the delivery that claimed it, then the duplicates the claim turned away. */
export function DeliveriesTab({ detail }: { detail: EventDetail }) {
  const dups = detail.deliveryCount - 1;
  return (
    <section className="flex min-w-0 flex-col gap-2" aria-labelledby="deliveries">
      <h3 id="deliveries" className="text-sm font-semibold">
        {plural(detail.deliveryCount, "delivery", "deliveries")}
        {dups > 0 && (
          <span className="font-normal text-muted-foreground"> (the first and {plural(dups, "duplicate")})</span>
        )}
      </h3>
      <p className="text-xs text-muted-foreground">
        A duplicate is answered 200 and does no work: the event was already claimed.
      </p>
      <Table data-deliveries="">
        <TableHeader className="[&_th]:bg-transparent">
          <TableRow>
            <TableHead>Received (UTC)</TableHead>
            <TableHead>Result</TableHead>
            <TableHead from="sm">Headers</TableHead>
          </TableRow>
        </TableHeader>
        <TableBody>
          {detail.deliveries.map((x) => (
            <TableRow key={x.id} data-delivery={x.claimed ? "claimed" : "duplicate"}>
              <TableCell className="whitespace-nowrap font-mono text-xs">
                <Time value={x.receivedAt} ms />
                {x.via === "replay" && <span className="block font-sans text-muted-foreground">via replay</span>}
              </TableCell>
              <TableCell label="Result">
                {x.claimed ? (
                  <Badge tone="success">first: claimed</Badge>
                ) : (
                  <Badge tone="neutral">duplicate{x.reprocessed ? " (reprocessed: shadow mode)" : ""}</Badge>
                )}
                <span className="mt-1 block text-xs text-muted-foreground sm:hidden">
                  {x.claimed ? "headers in the Headers tab" : "headers not stored"}
                </span>
              </TableCell>
              <TableCell from="sm" label="Headers" className="text-xs text-muted-foreground">
                {x.claimed ? "in the Headers tab" : "not stored"}
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
          Showing {detail.deliveries.length} of {plural(detail.deliveryCount, "delivery", "deliveries")}: the first and
          the latest. Older duplicates are counted, not kept.
        </p>
      )}
    </section>
  );
}
