"use client";

import { Button } from "@/components/ui/button";
import { useEventAction } from "./use-event-action";

/** The list's row actions: short enough to stay visible at 390 px. */
export function RowActions({ source, eventId, status }: { source: string; eventId: string; status: string }) {
  const { pending, message, canRequeue, canProcess, requeue, processNow } = useEventAction(source, eventId, status);
  if (!canRequeue && !canProcess && !message) return <span className="text-muted-foreground">—</span>;
  return (
    <div className="flex flex-col items-start gap-1">
      <div className="flex flex-wrap gap-1">
        {canRequeue && (
          <Button size="sm" variant="outline" disabled={pending} onClick={requeue}>
            Requeue
          </Button>
        )}
        {canProcess && (
          <Button size="sm" variant="outline" disabled={pending} onClick={processNow}>
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
