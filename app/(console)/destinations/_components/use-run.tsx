"use client";

import { useState, useTransition } from "react";

export type RunMessage = { ok: boolean; text: string } | undefined;

/** One action at a time for a button row: pending while it runs, then its outcome as a line of text. */
export function useRun() {
  const [pending, startTransition] = useTransition();
  const [message, setMessage] = useState<RunMessage>();
  const run = <T,>(
    act: () => Promise<{ ok: true; data: T } | { ok: false; error: string }>,
    said: (data: T) => string,
  ) =>
    startTransition(async () => {
      setMessage(undefined);
      const r = await act();
      setMessage(r.ok ? { ok: true, text: said(r.data) } : { ok: false, text: r.error });
    });
  return { pending, message, setMessage, run };
}

export function RunStatus({ message }: { message: RunMessage }) {
  if (!message) return null;
  return (
    <p role="status" className={message.ok ? "text-xs text-muted-foreground" : "text-xs text-destructive"}>
      {message.text}
    </p>
  );
}
