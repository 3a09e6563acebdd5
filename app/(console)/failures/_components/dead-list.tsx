"use client";

import { CheckIcon, EyeOffIcon } from "lucide-react";
import Link from "@/components/link";
import { useState } from "react";
import { Time } from "@/components/time";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { eventHref } from "../../events/_components/links";
import { ListSection } from "./list-section";
import { ResolveForm, type Resolution } from "./resolve-form";

export interface DeadRowView {
  source: string;
  eventId: string;
  eventType: string;
  lastError: string | null;
  receivedAt: string;
  attemptsUsed: number;
  errorKind: "permanent" | "transient" | null;
  lastAttemptAt: string | null;
}

const keyOf = (r: { source: string; eventId: string }) => JSON.stringify([r.source, r.eventId]);

function KindBadge({ kind }: { kind: DeadRowView["errorKind"] }) {
  if (!kind) return <span className="text-muted-foreground">—</span>;
  return kind === "permanent" ? (
    <Badge tone="danger" title="No retry can help until the cause is fixed">
      permanent
    </Badge>
  ) : (
    <Badge tone="warning" title="Out of attempts on an error a retry might have fixed">
      transient
    </Badge>
  );
}

function Pager({ newerHref, olderHref, count }: { newerHref?: string; olderHref?: string; count: number }) {
  const link = (href: string | undefined, label: string) =>
    href ? (
      <Button asChild variant="outline" size="sm">
        <Link href={href}>{label}</Link>
      </Button>
    ) : (
      <Button variant="outline" size="sm" className="text-foreground" disabled>
        {label}
      </Button>
    );
  return (
    <nav aria-label="Pages" className="flex flex-wrap items-center justify-between gap-2 text-xs text-muted-foreground">
      <span>
        {count} dead event{count === 1 ? "" : "s"} on this page
      </span>
      <span className="flex gap-2">
        {link(newerHref, "← Newer")}
        {link(olderHref, "Older →")}
      </span>
    </nav>
  );
}

/** The dead events, newest first, as work items: select some, then resolve or ignore them with a note. */
export function DeadList({
  rows,
  mayAct,
  maxAttempts,
  nothingDead,
  newerHref,
  olderHref,
}: {
  rows: DeadRowView[];
  mayAct: boolean;
  maxAttempts: number;
  nothingDead: boolean;
  newerHref?: string;
  olderHref?: string;
}) {
  const [picked, setPicked] = useState<ReadonlySet<string>>(new Set());
  const [deciding, setDeciding] = useState<Resolution | undefined>();
  // Rows that left the list (resolved, requeued) drop out of the selection with the refresh.
  const selected = rows.map(keyOf).filter((k) => picked.has(k));
  const all = rows.length > 0 && selected.length === rows.length;
  const toggle = (k: string, on: boolean) =>
    setPicked((prev) => {
      const next = new Set(prev);
      if (on) next.add(k);
      else next.delete(k);
      return next;
    });
  const cols = mayAct ? 6 : 5;
  return (
    <ListSection
      id="dead-events"
      title="Dead events"
      description="Out of attempts, or failed in a way no retry can fix. Newest first."
      actions={
        mayAct &&
        rows.length > 0 && (
          <div className="flex flex-wrap items-center gap-2">
            <span className="text-xs text-muted-foreground" aria-live="polite">
              {selected.length} selected
            </span>
            <Button size="sm" disabled={selected.length === 0} onClick={() => setDeciding("resolved")}>
              <CheckIcon aria-hidden />
              Resolve…
            </Button>
            <Button
              size="sm"
              variant="outline"
              className="text-foreground"
              disabled={selected.length === 0}
              onClick={() => setDeciding("ignored")}
            >
              <EyeOffIcon aria-hidden />
              Ignore…
            </Button>
          </div>
        )
      }
    >
      {mayAct && deciding && selected.length > 0 && (
        <ResolveForm
          key={deciding}
          resolution={deciding}
          keys={selected}
          onCancel={() => setDeciding(undefined)}
          onDone={() => {
            setDeciding(undefined);
            setPicked(new Set());
          }}
        />
      )}
      <Table>
        <TableHeader>
          <TableRow>
            {mayAct && (
              <TableHead className="w-8">
                {/* On a phone the header row is only this box: it says what it selects. */}
                <label className="inline-flex items-center gap-2 max-md:px-[0.8125rem]">
                  <input
                    type="checkbox"
                    className="size-4 accent-primary align-middle"
                    aria-label="Select every dead event on this page"
                    checked={all}
                    disabled={rows.length === 0}
                    onChange={(e) => setPicked(e.target.checked ? new Set(rows.map(keyOf)) : new Set())}
                  />
                  <span className="font-normal md:hidden">All on this page</span>
                </label>
              </TableHead>
            )}
            <TableHead>Event</TableHead>
            <TableHead from="md">Error kind</TableHead>
            <TableHead from="md">Attempts</TableHead>
            <TableHead from="md">Last error</TableHead>
            <TableHead from="lg">Last attempt</TableHead>
          </TableRow>
        </TableHeader>
        <TableBody>
          {rows.map((r) => {
            const k = keyOf(r);
            const attempts = `${r.attemptsUsed.toLocaleString("en")} of ${maxAttempts.toLocaleString("en")}`;
            return (
              <TableRow key={k} data-event-id={r.eventId} data-state={picked.has(k) ? "selected" : undefined}>
                {mayAct && (
                  // On a phone the box sits beside the event, not on a line of its own.
                  <TableCell className="max-md:float-left max-md:pr-3">
                    <input
                      type="checkbox"
                      className="mt-0.5 size-4 accent-primary"
                      aria-label={`Select ${r.eventId}`}
                      checked={picked.has(k)}
                      onChange={(e) => toggle(k, e.target.checked)}
                    />
                  </TableCell>
                )}
                <TableCell className="min-w-40 md:max-w-72">
                  <Link href={eventHref(r)} className="font-mono text-xs break-all text-primary hover:underline">
                    {r.eventId}
                  </Link>
                  <div className="mt-0.5 text-xs break-words text-muted-foreground">
                    {r.source} · <span className="font-mono">{r.eventType}</span>
                  </div>
                  <div className="mt-1 flex flex-wrap items-center gap-2 text-xs text-muted-foreground md:hidden">
                    <KindBadge kind={r.errorKind} />
                    <span>attempts {attempts}</span>
                  </div>
                  {r.lastError && (
                    <p className="mt-1 line-clamp-3 text-xs break-words text-destructive md:hidden">{r.lastError}</p>
                  )}
                  <div className="mt-0.5 text-xs text-muted-foreground lg:hidden">
                    last attempt <Time value={r.lastAttemptAt ?? r.receivedAt} />
                  </div>
                </TableCell>
                <TableCell from="md">
                  <KindBadge kind={r.errorKind} />
                </TableCell>
                <TableCell from="md" className="text-xs whitespace-nowrap tabular-nums">
                  {attempts}
                </TableCell>
                <TableCell from="md" className="text-xs break-words text-destructive">
                  <span className="line-clamp-3" title={r.lastError ?? undefined}>
                    {r.lastError ?? "—"}
                  </span>
                </TableCell>
                <TableCell from="lg" className="text-xs whitespace-nowrap">
                  <Time value={r.lastAttemptAt ?? r.receivedAt} />
                </TableCell>
              </TableRow>
            );
          })}
          {rows.length === 0 && (
            <TableRow>
              <TableCell colSpan={cols} className="py-8 text-center text-muted-foreground">
                {nothingDead ? "No dead events. Nothing waits for a person." : "No dead events on this page."}
              </TableCell>
            </TableRow>
          )}
        </TableBody>
      </Table>
      {(newerHref || olderHref || rows.length > 0) && (
        <Pager newerHref={newerHref} olderHref={olderHref} count={rows.length} />
      )}
    </ListSection>
  );
}
