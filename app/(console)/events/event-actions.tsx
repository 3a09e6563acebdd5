"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { Button } from "@/components/ui/button";
import { processNowAction, requeueEventAction } from "./actions";

/** The event page's ops actions; after one the page is fetched again, so the summary and attempts agree. */
export function EventActions({ source, eventId, status }: { source: string; eventId: string; status: string }) {
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
  return (
    <>
      {canRequeue && (
        <Button size="sm" disabled={pending} onClick={() => run("Requeued", requeueEventAction)}>
          Requeue
        </Button>
      )}
      {canProcess && (
        <Button
          size="sm"
          variant="outline"
          className="text-foreground"
          disabled={pending}
          onClick={() => run("Processed", processNowAction)}
        >
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
