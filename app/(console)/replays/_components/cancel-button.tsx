"use client";

import { useState, useTransition } from "react";
import { cancelReplayAction } from "../actions";

export function CancelReplayButton({ id }: { id: number }) {
  const [pending, startTransition] = useTransition();
  const [error, setError] = useState<string>();
  return (
    <span className="actions">
      <button type="button" className="danger" disabled={pending} onClick={() => startTransition(async () => {
        const result = await cancelReplayAction({ id });
        setError(result.ok ? undefined : result.error);
      })}>
        Cancel
      </button>
      {error && <span className="error" role="alert">{error}</span>}
    </span>
  );
}
