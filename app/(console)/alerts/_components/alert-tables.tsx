import { Time } from "@/components/time";
import { Badge, type BadgeTone } from "@/components/ui/badge";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import type { DeliveryRow, IncidentRow } from "@/lib/alerts/queries";

const RULE_WORDS: Record<IncidentRow["rule"], string> = {
  dead_event: "dead event",
  backlog_age: "backlog age",
  refusal_rate: "refusals",
  source_silent: "silent source",
  destination_failing: "failing destination",
};

const Empty = ({ children }: { children: string }) => (
  <p className="rounded-lg border border-dashed p-6 text-center text-sm text-muted-foreground">{children}</p>
);

/** Firing first in importance, then resolved: what happened, to what, and when it cleared. */
export function IncidentsTable({ rows }: { rows: IncidentRow[] }) {
  if (rows.length === 0) return <Empty>No incidents yet.</Empty>;
  return (
    <Table aria-label="Recent incidents">
      <TableHeader>
        <TableRow>
          <TableHead>State</TableHead>
          <TableHead>Incident</TableHead>
          <TableHead from="md">Subject</TableHead>
          <TableHead from="sm">Opened (UTC)</TableHead>
          <TableHead from="lg">Resolved (UTC)</TableHead>
        </TableRow>
      </TableHeader>
      <TableBody>
        {rows.map((r) => (
          <TableRow key={r.id} data-incident={r.id} data-state={r.state} data-rule={r.rule}>
            <TableCell>
              <Badge tone={r.state === "firing" ? "danger" : "success"}>{r.state}</Badge>
            </TableCell>
            <TableCell label="Incident" className="min-w-48">
              <div className="text-xs font-medium text-muted-foreground">{RULE_WORDS[r.rule]}</div>
              <div className="break-words">{r.summary}</div>
              {r.state === "firing" && r.clearSince && (
                <div className="text-xs text-muted-foreground" data-clearing>
                  clear since <Time value={r.clearSince} />: resolves if it stays clear
                </div>
              )}
              <div className="mt-1 flex flex-col gap-0.5 text-xs text-muted-foreground lg:hidden">
                <span className="font-mono break-all md:hidden">{r.subject}</span>
                <span className="sm:hidden">
                  opened <Time value={r.openedAt} />
                </span>
                {r.resolvedAt && (
                  <span>
                    resolved <Time value={r.resolvedAt} />
                    {r.resolution && ` · ${r.resolution}`}
                  </span>
                )}
              </div>
            </TableCell>
            <TableCell from="md" className="max-w-56 font-mono text-xs break-all">
              {r.subject}
            </TableCell>
            <TableCell from="sm" label="Opened (UTC)" className="text-xs whitespace-nowrap">
              <Time value={r.openedAt} />
            </TableCell>
            <TableCell from="lg" className="text-xs">
              {r.resolvedAt ? <Time value={r.resolvedAt} className="whitespace-nowrap" /> : "—"}
              {r.resolution && <div className="break-words text-muted-foreground">{r.resolution}</div>}
            </TableCell>
          </TableRow>
        ))}
      </TableBody>
    </Table>
  );
}

function deliveryState(d: DeliveryRow): { word: string; tone: BadgeTone } {
  if (d.status === "sent") return { word: "sent", tone: "success" };
  if (d.status === "failed") return { word: "gave up", tone: "danger" };
  if (d.status === "sending") return { word: "sending", tone: "info" };
  return d.attempts === 0 ? { word: "queued", tone: "neutral" } : { word: "retrying", tone: "warning" };
}

const CHANNEL_WORDS: Record<DeliveryRow["channel"], string> = { slack: "Slack", webhook: "Webhook" };

function lastError(d: DeliveryRow): string | undefined {
  if (!d.lastError) return undefined;
  const status = d.lastStatus !== null && !d.lastError.includes(String(d.lastStatus)) ? ` (HTTP ${d.lastStatus})` : "";
  return `${d.lastError}${status}`;
}

function When({ d }: { d: DeliveryRow }) {
  if (d.sentAt) return <Time value={d.sentAt} />;
  if (d.status === "pending")
    return (
      <>
        next <Time value={d.nextAttemptAt} />
      </>
    );
  return <>—</>;
}

/** Each message to each channel: how it went, how many attempts, and the last error (never the answer's body). */
export function DeliveriesTable({ rows }: { rows: DeliveryRow[] }) {
  if (rows.length === 0) return <Empty>No alert has been sent yet.</Empty>;
  return (
    <Table aria-label="Recent alert deliveries">
      <TableHeader>
        <TableRow>
          <TableHead from="sm">Queued (UTC)</TableHead>
          <TableHead>Message</TableHead>
          <TableHead>Status</TableHead>
          <TableHead from="md" className="text-right">
            Attempts
          </TableHead>
          <TableHead from="lg">Sent / next try (UTC)</TableHead>
          <TableHead from="lg">Last error</TableHead>
        </TableRow>
      </TableHeader>
      <TableBody>
        {rows.map((d) => {
          const s = deliveryState(d);
          const error = lastError(d);
          return (
            <TableRow key={d.id} data-delivery={d.id} data-status={d.status} data-channel={d.channel}>
              <TableCell from="sm" label="Queued (UTC)" className="text-xs whitespace-nowrap">
                <Time value={d.createdAt} />
              </TableCell>
              <TableCell className="min-w-48">
                <div className="text-xs font-medium text-muted-foreground">
                  {CHANNEL_WORDS[d.channel]}
                  {d.kind === "firing" ? " · firing" : " · resolved"}
                </div>
                <div className="break-words">{d.summary}</div>
                <div className="mt-1 flex flex-col gap-0.5 text-xs text-muted-foreground lg:hidden">
                  <span className="sm:hidden">
                    queued <Time value={d.createdAt} />
                  </span>
                  <span>
                    <span className="md:hidden">
                      {d.attempts} {d.attempts === 1 ? "attempt" : "attempts"} ·{" "}
                    </span>
                    <When d={d} />
                  </span>
                  {error && <span className="break-words text-destructive">{error}</span>}
                </div>
              </TableCell>
              <TableCell label="Status">
                <Badge tone={s.tone}>{s.word}</Badge>
              </TableCell>
              <TableCell from="md" className="text-right tabular-nums" data-count="attempts">
                {d.attempts}
              </TableCell>
              <TableCell from="lg" className="text-xs whitespace-nowrap">
                <When d={d} />
              </TableCell>
              <TableCell from="lg" className="max-w-xs text-xs break-words text-destructive">
                {error}
              </TableCell>
            </TableRow>
          );
        })}
      </TableBody>
    </Table>
  );
}
