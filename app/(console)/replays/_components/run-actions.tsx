"use client";

import { useState, useTransition } from "react";
import type { ReplayRun } from "@/db/schema/replay";
import { cancelReplayAction, resumeReplayAction } from "../actions";

/** Ops: cancel a running run, or resume a failed or cancelled one from its cursor. */
export function RunActions({ id, status }: { id: number; status: ReplayRun["status"] }) {
  const [pending, startTransition] = useTransition();
  const [error, setError] = useState<string>();
  const run = (action: typeof cancelReplayAction) =>
    startTransition(async () => {
      const result = await action({ id });
      setError(result.ok ? undefined : result.error);
    });
  if (status === "succeeded") return null;
  return (
    <span className="actions">
      {status === "running" ? (
        <button type="button" className="danger" disabled={pending} onClick={() => run(cancelReplayAction)}>
          Cancel
        </button>
      ) : (
        <button type="button" className="secondary" disabled={pending} onClick={() => run(resumeReplayAction)}>
          Resume
        </button>
      )}
      {error && (
        <span className="error" role="alert">
          {error}
        </span>
      )}
    </span>
  );
}
