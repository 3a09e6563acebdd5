"use client";

import { useState, useTransition } from "react";
import { countRequeueableAction, requeueMatchingAction } from "../actions";

type Filter = Record<string, string | string[] | undefined>;

/** Two steps on purpose: count the failed/dead set the filter matches, then requeue exactly that many. */
export function BulkRequeue({ filter }: { filter: Filter }) {
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
        r.ok
          ? { ok: true, text: `Requeued ${r.data.requeued} event${r.data.requeued === 1 ? "" : "s"}.` }
          : { ok: false, text: r.error },
      );
    });
  return (
    <div className="bulk">
      {count === undefined ? (
        <button type="button" className="secondary" disabled={pending} onClick={ask}>
          Requeue failed/dead…
        </button>
      ) : (
        <span className="confirm" role="alertdialog" aria-label="Confirm bulk requeue">
          Requeue <strong>{count.toLocaleString("en")}</strong> failed/dead event{count === 1 ? "" : "s"} matching this
          filter?
          <button type="button" disabled={pending} onClick={() => confirm(count)}>
            Requeue {count.toLocaleString("en")}
          </button>
          <button type="button" className="secondary" disabled={pending} onClick={() => setCount(undefined)}>
            Cancel
          </button>
        </span>
      )}
      {message && (
        <span role="status" className={message.ok ? "muted" : "notice error"}>
          {message.text}
        </span>
      )}
    </div>
  );
}
