"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { Button } from "@/components/ui/button";
import { countRequeueableAction, requeueMatchingAction } from "../actions";
import { plural } from "@/lib/format/words";

type Filter = Record<string, string | string[] | undefined>;

/**
 * Two steps on purpose: count the failed/dead set the filter matches, then requeue exactly that many.
 * The list is fetched again after it, so the rows agree with the count the confirmation gave.
 */
export function BulkRequeue({ filter }: { filter: Filter }) {
  const router = useRouter();
  const [pending, startTransition] = useTransition();
  const [count, setCount] = useState<number | undefined>();
  const [message, setMessage] = useState<{ ok: boolean; text: string } | undefined>();
  const ask = () =>
    startTransition(async () => {
      setMessage(undefined);
      const r = await countRequeueableAction(filter);
      if (!r.ok) return setMessage({ ok: false, text: r.error });
      if (r.data.count === 0) return setMessage({ ok: true, text: "No failed or dead events match this filter." });
      setCount(r.data.count);
    });
  const confirm = (confirmed: number) =>
    startTransition(async () => {
      const r = await requeueMatchingAction({ filter, confirmed });
      setCount(undefined);
      setMessage(
        r.ok ? { ok: true, text: `Requeued ${plural(r.data.requeued, "event")}.` } : { ok: false, text: r.error },
      );
      if (r.ok) router.refresh();
    });
  return (
    <div className="flex flex-wrap items-center gap-2">
      {count === undefined ? (
        <Button variant="outline" disabled={pending} onClick={ask}>
          Requeue failed/dead…
        </Button>
      ) : (
        <span
          className="flex flex-wrap items-center gap-2 rounded-md border border-warning/40 bg-warning/10 px-3 py-1.5 text-sm"
          role="alertdialog"
          aria-label="Confirm bulk requeue"
        >
          Requeue <strong>{plural(count, "failed/dead event")}</strong> matching this filter?
          <Button size="sm" disabled={pending} onClick={() => confirm(count)}>
            Requeue {count.toLocaleString("en")}
          </Button>
          <Button size="sm" variant="outline" disabled={pending} onClick={() => setCount(undefined)}>
            Cancel
          </Button>
        </span>
      )}
      {message && (
        <span role="status" className={message.ok ? "text-sm text-muted-foreground" : "text-sm text-destructive"}>
          {message.text}
        </span>
      )}
    </div>
  );
}
