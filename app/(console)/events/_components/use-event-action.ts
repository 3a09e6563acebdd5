"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { processNowAction, requeueEventAction } from "../actions";
import { processedText, requeuedText } from "./action-words";

export type EventActionMessage = { ok: boolean; text: string } | undefined;

/**
 * Requeue / process-now for one event, shared by the list's rows and the event page. After a success the
 * page is fetched again (router.refresh), so the row, the counts and the message agree.
 */
export function useEventAction(source: string, eventId: string, status: string) {
  const router = useRouter();
  const [pending, startTransition] = useTransition();
  const [message, setMessage] = useState<EventActionMessage>();
  const run = (act: () => Promise<{ ok: true; text: string } | { ok: false; error: string }>) =>
    startTransition(async () => {
      const result = await act();
      setMessage(result.ok ? result : { ok: false, text: result.error });
      if (result.ok) router.refresh();
    });
  // The answer in the page's status words: the page says "waiting", so does the message.
  const requeue = () =>
    run(async () => {
      const r = await requeueEventAction({ source, eventId });
      return r.ok ? { ok: true, text: requeuedText(r.data.status) } : r;
    });
  const processNow = () =>
    run(async () => {
      const r = await processNowAction({ source, eventId });
      return r.ok ? { ok: true, text: processedText(r.data) } : r;
    });
  return {
    pending,
    message,
    canRequeue: status === "failed" || status === "dead",
    canProcess: status !== "settled" && status !== "processing",
    requeue,
    processNow,
  };
}
