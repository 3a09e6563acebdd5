"use client";

import { Loader2Icon, PlayIcon } from "lucide-react";
import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import type { ReplayRun } from "@/db/schema/replay";
import { Time } from "@/components/time";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { startReplayAction } from "../actions";
import { n, SOURCE_LABELS, statusWords } from "./format";

function Sample({ run }: { run: ReplayRun }) {
  if (run.sample.length === 0) return null;
  return (
    <div className="flex flex-col gap-2">
      <h3 className="text-sm font-medium">
        {run.sample.length < run.new
          ? `The first ${run.sample.length} of the ${n(run.new)} new events`
          : "The new events"}
      </h3>
      <Table aria-label="Sample of the new events">
        <TableHeader>
          <TableRow>
            <TableHead>Event</TableHead>
            <TableHead from="sm">Type</TableHead>
            <TableHead from="sm">At the provider (UTC)</TableHead>
          </TableRow>
        </TableHeader>
        <TableBody>
          {run.sample.map((s) => (
            <TableRow key={s.eventId} data-sample={s.eventId}>
              <TableCell className="font-mono text-xs break-all">
                {s.eventId}
                <div className="mt-0.5 font-sans text-muted-foreground sm:hidden">
                  {s.type ?? "—"} · <Time value={s.at} />
                </div>
              </TableCell>
              <TableCell from="sm" label="Type" className="font-mono text-xs">
                {s.type ?? "—"}
              </TableCell>
              <TableCell from="sm" label="At the provider" className="whitespace-nowrap text-xs">
                <Time value={s.at} />
              </TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </div>
  );
}

/** The dry run's counts and a sample for the chosen window, then the button that starts the real replay. */
export function PreviewPanel({ run }: { run: ReplayRun }) {
  const router = useRouter();
  const [pending, startTransition] = useTransition();
  const [error, setError] = useState<string>();
  const source = SOURCE_LABELS[run.source];
  const status = statusWords(run);
  const start = () =>
    startTransition(async () => {
      const result = await startReplayAction({ id: run.id });
      if (result.ok) router.push(`/replays?started=${result.data.runId}`);
      else setError(result.error);
    });
  return (
    <Card aria-label="Preview" data-preview-id={run.id}>
      <CardHeader>
        <div className="min-w-0">
          <CardTitle>Preview #{run.id}</CardTitle>
          <CardDescription className="break-words">
            {source} · <Time value={run.since} /> → <Time value={run.until} /> UTC
            {run.types.length > 0 && ` · ${run.types.join(", ")}`}
          </CardDescription>
        </div>
        <Badge tone={status.tone}>{status.word}</Badge>
      </CardHeader>
      <CardContent className="flex flex-col gap-4">
        {run.status === "running" && (
          <p role="status" className="flex items-center gap-2 text-sm">
            <Loader2Icon className="size-4 animate-spin text-muted-foreground" aria-hidden />
            Counting events at {source}… {n(run.fetched)} so far.
          </p>
        )}
        {run.status === "failed" && (
          <Alert tone="danger" role="alert">
            {run.lastError}
          </Alert>
        )}
        {run.status === "cancelled" && <p className="text-sm text-muted-foreground">This preview was cancelled.</p>}
        {run.status === "succeeded" && (
          <>
            <p data-testid="preview-summary" className="text-sm">
              <strong>{n(run.fetched)}</strong> events at {source} in this window · <strong>{n(run.duplicates)}</strong>{" "}
              already in the ledger · <strong>{n(run.new)}</strong> would be new
              {run.failed > 0 ? ` · ${n(run.failed)} unreadable` : ""}.
            </p>
            <Sample run={run} />
            <div className="flex flex-wrap items-center gap-3">
              <Button onClick={start} disabled={pending || run.new === 0}>
                {!pending && run.new > 0 && <PlayIcon aria-hidden />}
                {run.new === 0 ? "Nothing to replay" : pending ? "Starting…" : `Start replay (${n(run.new)} new)`}
              </Button>
              {run.new > 0 && (
                <span className="text-xs text-muted-foreground">
                  Each new event is claimed as a delivery would be; what the ledger has is skipped.
                </span>
              )}
            </div>
          </>
        )}
        {error && (
          <Alert tone="danger" role="alert">
            {error}
          </Alert>
        )}
      </CardContent>
    </Card>
  );
}
