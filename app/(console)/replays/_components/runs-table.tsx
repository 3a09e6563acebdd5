import type { ReplayRun } from "@/db/schema/replay";
import { Time } from "@/components/time";
import { Badge } from "@/components/ui/badge";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { n, SOURCE_LABELS, statusWords } from "./format";
import { RunActions } from "./run-actions";
import { plural } from "@/lib/format/words";

// The e2e specs read these cells by data-count.
const COUNTS = [
  ["fetched", "Fetched"],
  ["new", "New"],
  ["duplicates", "Duplicates"],
  ["failed", "Failed"],
] as const satisfies readonly (readonly [keyof ReplayRun, string])[];

function Window({ run }: { run: ReplayRun }) {
  return (
    <>
      <span className="font-medium">{SOURCE_LABELS[run.source]}</span>
      <div className="text-xs whitespace-nowrap text-muted-foreground">
        <Time value={run.since} /> →
      </div>
      <div className="text-xs whitespace-nowrap text-muted-foreground">
        <Time value={run.until} />
      </div>
      {run.types.length > 0 && <div className="text-xs break-words text-muted-foreground">{run.types.join(", ")}</div>}
    </>
  );
}

/** Every run, newest first: who, what window, how far it got and how it ended. */
export function RunsTable({ runs, canAct }: { runs: ReplayRun[]; canAct: boolean }) {
  if (runs.length === 0)
    return (
      <p className="rounded-lg border border-dashed p-6 text-center text-sm text-muted-foreground">No replays yet.</p>
    );
  return (
    <Table aria-label="Replay runs">
      <TableHeader>
        <TableRow>
          <TableHead>Run</TableHead>
          <TableHead from="md">Window (UTC)</TableHead>
          <TableHead from="xl">Who</TableHead>
          <TableHead>Status</TableHead>
          {COUNTS.map(([k, label]) => (
            <TableHead key={k} from="md" className="text-right">
              {label}
            </TableHead>
          ))}
          {canAct && (
            <TableHead className="w-0 text-right">
              <span className="sr-only">Actions</span>
            </TableHead>
          )}
        </TableRow>
      </TableHeader>
      <TableBody>
        {runs.map((r) => {
          const status = statusWords(r);
          return (
            <TableRow key={r.id} data-run-id={r.id} data-status={r.status} data-kind={r.dryRun ? "preview" : "replay"}>
              <TableCell>
                <div className="flex items-center gap-2">
                  <span className="font-mono text-xs">#{r.id}</span>
                  <span className="text-xs font-medium">{r.dryRun ? "Preview" : "Replay"}</span>
                </div>
                <div className="text-xs whitespace-nowrap text-muted-foreground">
                  <Time value={r.startedAt} />
                </div>
                <div className="text-xs break-all text-muted-foreground xl:hidden">{r.actor}</div>
                <div className="mt-1 md:hidden">
                  <Window run={r} />
                </div>
              </TableCell>
              <TableCell from="md">
                <Window run={r} />
              </TableCell>
              <TableCell from="xl" className="max-w-56 truncate" title={r.actor}>
                {r.actor}
              </TableCell>
              <TableCell label="Status" className="max-w-xs">
                <Badge tone={status.tone}>{status.word}</Badge>
                {r.status === "running" && (
                  <div className="mt-1 text-xs text-muted-foreground">
                    page {n(r.pages + 1)} · {n(r.fetched)} fetched so far
                  </div>
                )}
                <div className="mt-1 text-xs text-muted-foreground md:hidden">
                  {n(r.fetched)} fetched · {n(r.new)} new · {plural(r.duplicates, "duplicate")}
                  {r.failed > 0 && ` · ${n(r.failed)} failed`}
                </div>
                {r.lastError && <div className="mt-1 text-xs break-words text-destructive">{r.lastError}</div>}
              </TableCell>
              {COUNTS.map(([k]) => (
                <TableCell key={k} from="md" className="text-right tabular-nums" data-count={k}>
                  {r[k]}
                </TableCell>
              ))}
              {canAct && (
                <TableCell className="text-right">
                  <RunActions run={r} />
                </TableCell>
              )}
            </TableRow>
          );
        })}
      </TableBody>
    </Table>
  );
}
