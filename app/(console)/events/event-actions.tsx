"use client";

import { Button } from "@/components/ui/button";
import { useEventAction } from "./_components/use-event-action";

/** The event page's ops actions; after one the page is fetched again, so the summary and attempts agree. */
export function EventActions({ source, eventId, status }: { source: string; eventId: string; status: string }) {
  const { pending, message, canRequeue, canProcess, requeue, processNow } = useEventAction(source, eventId, status);
  return (
    <>
      {canRequeue && (
        <Button size="sm" disabled={pending} onClick={requeue}>
          Requeue
        </Button>
      )}
      {canProcess && (
        <Button size="sm" variant="outline" className="text-foreground" disabled={pending} onClick={processNow}>
          Process now
        </Button>
      )}
      {message && (
        <span
          role="status"
          className={message.ok ? "basis-full text-xs text-muted-foreground" : "basis-full text-xs text-destructive"}
        >
          {message.text}
        </span>
      )}
    </>
  );
}
