"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { Button } from "@/components/ui/button";
import { processNowAction, requeueEventAction } from "../actions";

/**
 * The list's row actions: short enough to stay visible at 390 px. After an action the page is fetched
 * again (router.refresh), so the row, the counts and the confirmation agree.
 */
export function RowActions({ source, eventId, status }: { source: string; eventId: string; status: string }) {
  const router = useRouter();
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
      if (result.ok) router.refresh();
    });
  const canRequeue = status === "failed" || status === "dead";
  const canProcess = status !== "settled" && status !== "processing";
  if (!canRequeue && !canProcess && !message) return <span className="text-muted-foreground">—</span>;
  return (
    <div className="flex flex-col items-start gap-1">
      <div className="flex flex-wrap gap-1">
        {canRequeue && (
          <Button size="sm" variant="outline" disabled={pending} onClick={() => run("Requeued", requeueEventAction)}>
            Requeue
          </Button>
        )}
        {canProcess && (
          <Button size="sm" variant="outline" disabled={pending} onClick={() => run("Processed", processNowAction)}>
            Process now
          </Button>
        )}
      </div>
      {message && (
        <span role="status" className={message.ok ? "text-xs text-muted-foreground" : "text-xs text-destructive"}>
          {message.text}
        </span>
      )}
    </div>
  );
}
