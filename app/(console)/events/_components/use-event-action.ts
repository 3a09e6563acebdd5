"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { processNowAction, requeueEventAction } from "../actions";

export type EventActionMessage = { ok: boolean; text: string } | undefined;

/**
 * Requeue / process-now for one event, shared by the list's rows and the event page. After a success the
 * page is fetched again (router.refresh), so the row, the counts and the message agree.
 */
export function useEventAction(source: string, eventId: string, status: string) {
  const router = useRouter();
  const [pending, startTransition] = useTransition();
  const [message, setMessage] = useState<EventActionMessage>();
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
  return {
    pending,
    message,
    canRequeue: status === "failed" || status === "dead",
    canProcess: status !== "settled" && status !== "processing",
    requeue: () => run("Requeued", requeueEventAction),
    processNow: () => run("Processed", processNowAction),
  };
}
