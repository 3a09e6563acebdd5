"use client";

import { RotateCcwIcon } from "lucide-react";
import { useState, useTransition } from "react";
import { Button } from "@/components/ui/button";
import { countGroupAction, requeueGroupAction } from "../actions";
import { useAnnounce } from "./announcer";

export interface GroupRef {
  source: string;
  eventType: string;
  status: "dead" | "failed";
  key: { errorKind: "permanent" | "transient"; pattern: string };
}

const events = (n: number) => `${n.toLocaleString("en")} event${n === 1 ? "" : "s"}`;

/**
 * Two steps on purpose: count the group as it is now, then requeue exactly that many (the requeue
 * refuses if it has grown meanwhile). Meant for after the cause is fixed: otherwise it only burns attempts.
 */
export function RequeueGroup({ group }: { group: GroupRef }) {
  const [pending, startTransition] = useTransition();
  const [count, setCount] = useState<number | undefined>();
  const announce = useAnnounce();
  const what = group.status === "dead" ? "dead" : "retrying";
  const ask = () =>
    startTransition(async () => {
      announce(undefined);
      const r = await countGroupAction(group);
      if (!r.ok) return announce({ ok: false, text: r.error });
      if (r.data.count === 0) return announce({ ok: true, text: `No ${what} events are left in this group.` });
      setCount(r.data.count);
    });
  const confirm = (confirmed: number) =>
    startTransition(async () => {
      const r = await requeueGroupAction({ ...group, confirmed });
      setCount(undefined);
      announce(
        r.ok
          ? { ok: true, text: `Requeued ${events(r.data.requeued)} of ${group.source} ${group.eventType}.` }
          : { ok: false, text: r.error },
      );
    });
  return (
    <div className="flex min-w-0 flex-col gap-2">
      {count === undefined ? (
        <Button variant="secondary" size="sm" className="border-transparent" disabled={pending} onClick={ask}>
          <RotateCcwIcon aria-hidden />
          Requeue group
        </Button>
      ) : (
        <div
          role="alertdialog"
          aria-label="Confirm group requeue"
          className="flex flex-col gap-2 rounded-md border bg-muted/40 p-2 text-sm"
        >
          <p>
            Requeue <strong>{count.toLocaleString("en")}</strong> {what} event{count === 1 ? "" : "s"} in this group? Do
            it once the cause is fixed: each gets a fresh set of attempts.
          </p>
          <div className="flex flex-wrap gap-2">
            <Button size="sm" disabled={pending} onClick={() => confirm(count)}>
              Requeue {count.toLocaleString("en")}
            </Button>
            <Button
              size="sm"
              variant="outline"
              className="text-foreground"
              disabled={pending}
              onClick={() => setCount(undefined)}
            >
              Cancel
            </Button>
          </div>
        </div>
      )}
    </div>
  );
}
