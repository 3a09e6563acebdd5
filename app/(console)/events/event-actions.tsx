"use client";

import { useState, useTransition } from "react";
import { processNowAction, requeueEventAction } from "./actions";

export function EventActions({ source, eventId, status }: { source: string; eventId: string; status: string }) {
  const [pending, startTransition] = useTransition();
  const [message, setMessage] = useState<{ ok: boolean; text: string } | undefined>();
  const run = (label: string, action: typeof requeueEventAction | typeof processNowAction) =>
    startTransition(async () => {
      const result = await action({ source, eventId });
      setMessage(
        result.ok
          ? { ok: true, text: `${label}: ${"outcome" in result.data ? result.data.outcome : result.data.status}` }
          : { ok: false, text: result.error },
      );
    });
  return (
    <div className="actions">
      {(status === "failed" || status === "dead") && (
        <button
          type="button"
          className="secondary"
          disabled={pending}
          onClick={() => run("Requeued", requeueEventAction)}
        >
          Requeue
        </button>
      )}
      {status !== "settled" && status !== "processing" && (
        <button
          type="button"
          className="secondary"
          disabled={pending}
          onClick={() => run("Processed", processNowAction)}
        >
          Process now
        </button>
      )}
      {message && (
        <span role="status" className={message.ok ? "muted" : "notice error"}>
          {message.text}
        </span>
      )}
    </div>
  );
}
