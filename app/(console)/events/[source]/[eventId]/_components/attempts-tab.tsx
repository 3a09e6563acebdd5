import type { ReactNode } from "react";
import { describeStatus } from "@/components/event-status";
import { Time } from "@/components/time";
import { Badge } from "@/components/ui/badge";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import type { EventDetail } from "@/lib/console/event-detail";
import { budgetPosition } from "./format";
import { plural } from "@/lib/format/words";

type Attempt = EventDetail["attempts"][number];

const duration = (a: Attempt) =>
  `${Math.max(0, a.finishedAt.getTime() - a.startedAt.getTime()).toLocaleString("en")} ms`;

function OutcomeBadge({ outcome }: { outcome: Attempt["outcome"] }) {
  if (outcome === "failed") return <Badge tone="danger">failed</Badge>;
  const { label, tone, hint } = describeStatus({ status: "settled", outcome });
  return (
    <Badge tone={tone} title={hint}>
      {label}
    </Badge>
  );
}

function KindBadge({ kind }: { kind: Attempt["errorKind"] }) {
  if (kind === "permanent")
    return (
      <Badge tone="danger" title="Retrying cannot help: the event went dead at once">
        permanent
      </Badge>
    );
  if (kind === "transient")
    return (
      <Badge tone="warning" title="Retried with backoff">
        transient
      </Badge>
    );
  return null;
}

/** Where the event stands in its retries: the next one's time, or why none is coming. */
function NextStep({ event, maxAttempts }: { event: EventDetail["event"]; maxAttempts: number }): ReactNode {
  switch (event.status) {
    case "failed":
      return (
        <>
          Next retry at <Time value={event.nextAttemptAt} className="font-mono" />.
        </>
      );
    case "claimed":
      return (
        <>
          Waiting for a worker since <Time value={event.nextAttemptAt} className="font-mono" />.
        </>
      );
    case "processing":
      return (
        <>
          An attempt is running since <Time value={event.leasedAt} className="font-mono" />; its lease expires{" "}
          <Time value={event.leaseExpiresAt} className="font-mono" />.
        </>
      );
    case "dead":
      return (
        <>No retry is scheduled: it waits for a person. A requeue gives it {plural(maxAttempts, "attempt")} again.</>
      );
    case "settled":
      return null;
  }
}

export function AttemptsTab({ detail, maxAttempts }: { detail: EventDetail; maxAttempts: number }) {
  const e = detail.event;
  const position = budgetPosition(detail.attempts, e.attemptsBase);
  const next = NextStep({ event: e, maxAttempts });
  return (
    <div className="flex min-w-0 flex-col gap-3">
      {next && (
        <p className="text-sm" data-next-step="">
          {next}
        </p>
      )}
      <Table data-attempts="">
        <TableHeader className="[&_th]:bg-transparent">
          <TableRow>
            <TableHead>Attempt</TableHead>
            <TableHead from="md">Trigger</TableHead>
            <TableHead from="lg">Actor</TableHead>
            <TableHead from="md">Started (UTC)</TableHead>
            <TableHead from="md" className="text-right">
              Duration
            </TableHead>
            <TableHead>Outcome</TableHead>
            <TableHead from="sm">Error</TableHead>
          </TableRow>
        </TableHeader>
        <TableBody>
          {detail.attempts.map((a) => {
            const n = position.get(a.number) ?? a.number;
            return (
              <TableRow key={a.id} data-attempt={a.number}>
                <TableCell className="whitespace-nowrap">
                  <span className="font-medium">
                    {n} of {maxAttempts}
                  </span>
                  {n !== a.number && <span className="block text-xs text-muted-foreground">#{a.number} in all</span>}
                  <span className="block text-xs text-muted-foreground md:hidden">{a.trigger}</span>
                  <span className="block max-w-40 truncate text-xs text-muted-foreground lg:hidden" title={a.actor}>
                    {a.actor}
                  </span>
                  <span className="block text-xs text-muted-foreground md:hidden">
                    <Time value={a.startedAt} ms /> · {duration(a)}
                  </span>
                </TableCell>
                <TableCell from="md">{a.trigger}</TableCell>
                <TableCell from="lg" className="max-w-56 font-mono text-xs break-all">
                  {a.actor}
                </TableCell>
                <TableCell from="md" className="whitespace-nowrap font-mono text-xs">
                  <Time value={a.startedAt} ms />
                </TableCell>
                <TableCell from="md" className="whitespace-nowrap text-right font-mono text-xs">
                  {duration(a)}
                </TableCell>
                <TableCell label="Outcome">
                  <span className="flex flex-wrap gap-1">
                    <OutcomeBadge outcome={a.outcome} />
                    <KindBadge kind={a.errorKind} />
                  </span>
                  {a.error && (
                    <span className="mt-1 block font-mono text-xs break-words text-destructive sm:hidden">
                      {a.error}
                    </span>
                  )}
                </TableCell>
                <TableCell from="sm" label="Error" className="min-w-48 font-mono text-xs break-words text-destructive">
                  {a.error}
                </TableCell>
              </TableRow>
            );
          })}
          {detail.attempts.length === 0 && (
            <TableRow>
              <TableCell colSpan={7} className="py-6 text-center text-muted-foreground">
                Not attempted yet.
              </TableCell>
            </TableRow>
          )}
        </TableBody>
      </Table>
      <p className="text-xs text-muted-foreground">
        Each event gets {plural(maxAttempts, "attempt")}; a requeue restarts the count, so an attempt reads as its place
        in the budget it ran in.
      </p>
    </div>
  );
}
