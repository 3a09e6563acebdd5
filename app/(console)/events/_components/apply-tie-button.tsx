"use client";

import { useState, useTransition } from "react";
import { Button } from "@/components/ui/button";
import { applyTieAction } from "../actions";

/** Decides an undecided tie for this event, after a confirmation that says what it does. */
export function ApplyTieButton({
  source,
  eventId,
  keptEventId,
}: {
  source: string;
  eventId: string;
  keptEventId: string | null;
}) {
  const [pending, start] = useTransition();
  const [message, setMessage] = useState<{ ok: boolean; text: string }>();
  const apply = () => {
    const kept = keptEventId ? `event ${keptEventId}` : "the event applied now";
    if (
      !window.confirm(
        `Apply ${eventId}'s state instead of ${kept}'s? Do this only if you know ${eventId} is the newer one.`,
      )
    )
      return;
    start(async () => {
      const r = await applyTieAction({ source, eventId });
      setMessage(
        r.ok ? { ok: true, text: `Applied; replaced ${r.data.replacedEventId}.` } : { ok: false, text: r.error },
      );
    });
  };
  return (
    <span className="inline-flex flex-wrap items-center gap-2">
      <Button size="sm" variant="outline" className="text-foreground" onClick={apply} disabled={pending}>
        {pending ? "Applying…" : "Apply this event"}
      </Button>
      {message && (
        <span
          role={message.ok ? "status" : "alert"}
          className={message.ok ? "text-xs text-muted-foreground" : "text-xs text-destructive"}
        >
          {message.text}
        </span>
      )}
    </span>
  );
}
