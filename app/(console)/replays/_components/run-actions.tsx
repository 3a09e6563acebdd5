"use client";

import Link from "@/components/link";
import { useState, useTransition } from "react";
import type { ReplayRun } from "@/db/schema/replay";
import { Button } from "@/components/ui/button";
import { cancelReplayAction, resumeReplayAction } from "../actions";

/** Ops: cancel a running run, resume a failed or cancelled one from its cursor, or open a finished preview. */
export function RunActions({ run }: { run: Pick<ReplayRun, "id" | "status" | "dryRun"> }) {
  const [pending, startTransition] = useTransition();
  const [error, setError] = useState<string>();
  const act = (action: typeof cancelReplayAction) =>
    startTransition(async () => {
      const result = await action({ id: run.id });
      setError(result.ok ? undefined : result.error);
    });
  return (
    <div className="flex flex-col items-end gap-1">
      {run.status === "running" && (
        <Button
          size="sm"
          variant="outline"
          className="text-destructive"
          disabled={pending}
          onClick={() => act(cancelReplayAction)}
        >
          Cancel
        </Button>
      )}
      {(run.status === "failed" || run.status === "cancelled") && (
        <Button size="sm" variant="outline" disabled={pending} onClick={() => act(resumeReplayAction)}>
          Resume
        </Button>
      )}
      {run.status === "succeeded" && run.dryRun && (
        <Button size="sm" variant="ghost" asChild>
          <Link href={`/replays?preview=${run.id}`} aria-label={`Open preview ${run.id}`}>
            Open
          </Link>
        </Button>
      )}
      {error && (
        <p className="max-w-48 text-right text-xs text-destructive" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
