"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import type { ReplayRun } from "@/db/schema/replay";
import { FormMessage } from "@/components/form-message";
import { startReplayAction } from "../actions";
import { utc } from "@/components/utc";
import { SOURCE_LABELS } from "./format";

/** The dry run's counts for the chosen window, then the button that starts the real replay. */
export function PreviewPanel({ run }: { run: ReplayRun }) {
  const router = useRouter();
  const [pending, startTransition] = useTransition();
  const [error, setError] = useState<{ ok: false; error: string }>();
  const where = `${SOURCE_LABELS[run.source]}, ${utc(run.since)} → ${utc(run.until)} UTC${run.types.length ? `, ${run.types.join(", ")}` : ""}`;
  const start = () =>
    startTransition(async () => {
      const result = await startReplayAction({ id: run.id });
      if (result.ok) router.push(`/replays?started=${result.data.runId}`);
      else setError(result);
    });
  return (
    <section className="panel" aria-label="Preview" data-preview-id={run.id} style={{ marginTop: 12 }}>
      <h2 style={{ marginTop: 0 }}>Preview: {where}</h2>
      {run.status === "running" && (
        <p role="status">
          Counting events at {SOURCE_LABELS[run.source]}… {run.fetched} so far.
        </p>
      )}
      {run.status === "failed" && (
        <div className="notice error" role="alert">
          {run.lastError}
        </div>
      )}
      {run.status === "cancelled" && <p className="muted">This preview was cancelled.</p>}
      {run.status === "succeeded" && (
        <>
          <p data-testid="preview-summary">
            <strong>{run.fetched}</strong> events at {SOURCE_LABELS[run.source]} in this window ·{" "}
            <strong>{run.duplicates}</strong> already in the ledger · <strong>{run.new}</strong> would be new
            {run.failed > 0 ? ` · ${run.failed} unreadable` : ""}.
          </p>
          <button type="button" onClick={start} disabled={pending || run.new === 0}>
            {run.new === 0 ? "Nothing to replay" : pending ? "Starting…" : `Start replay (${run.new} new)`}
          </button>
        </>
      )}
      <FormMessage state={error} success="" />
    </section>
  );
}
