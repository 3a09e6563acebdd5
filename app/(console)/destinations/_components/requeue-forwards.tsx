"use client";

import { RotateCcwIcon } from "lucide-react";
import { useState, useTransition } from "react";
import {
  AlertDialog,
  AlertDialogAction,
  AlertDialogCancel,
  AlertDialogContent,
  AlertDialogDescription,
  AlertDialogFooter,
  AlertDialogHeader,
  AlertDialogTitle,
} from "@/components/ui/alert-dialog";
import { Button } from "@/components/ui/button";
import { NativeSelect } from "@/components/ui/input";
import { plural } from "@/lib/format/words";
import { countRequeueableForwardsAction, requeueForwardsAction } from "../actions";
import { RunStatus, type RunMessage } from "./use-run";

const CHOICES = { "failed,dead": "failed or dead", failed: "failed", dead: "dead" } as const;
type Choice = keyof typeof CHOICES;

/**
 * Ops: count first, then confirm that count in a dialog. The requeue takes exactly the confirmed forwards;
 * when more match by then, nothing changes and the person counts again.
 */
export function RequeueForwards({
  name,
  newest,
  max: MAX,
}: {
  name: string;
  newest: boolean;
  /** FORWARD_REQUEUE_MAX: one requeue's bound. */
  max: number;
}) {
  const [pending, startTransition] = useTransition();
  const [choice, setChoice] = useState<Choice>("failed,dead");
  const [count, setCount] = useState<number>();
  const [message, setMessage] = useState<RunMessage>();
  const statuses = choice.split(",") as ("failed" | "dead")[];
  const ask = () =>
    startTransition(async () => {
      setMessage(undefined);
      const r = await countRequeueableForwardsAction({ destination: name, statuses });
      if (!r.ok) setMessage({ ok: false, text: r.error });
      else if (r.data === 0) setMessage({ ok: true, text: `No ${CHOICES[choice]} forwards to requeue.` });
      else setCount(r.data);
    });
  const confirmed = count === undefined ? 0 : Math.min(count, MAX);
  const requeue = () =>
    startTransition(async () => {
      setCount(undefined);
      const r = await requeueForwardsAction({ destination: name, statuses, confirmed });
      setMessage(
        r.ok ? { ok: true, text: `${plural(r.data.requeued, "forward")} requeued.` } : { ok: false, text: r.error },
      );
    });
  return (
    <div className="flex flex-col gap-1.5">
      <div className="flex flex-wrap items-center gap-2">
        <NativeSelect
          aria-label="Which forwards"
          value={choice}
          onChange={(e) => setChoice(e.target.value as Choice)}
          className="h-8 w-40"
        >
          {Object.entries(CHOICES).map(([value, words]) => (
            <option key={value} value={value}>
              {words}
            </option>
          ))}
        </NativeSelect>
        <Button size="sm" variant="outline" className="text-foreground" disabled={pending} onClick={ask}>
          <RotateCcwIcon aria-hidden />
          {pending && count === undefined ? "Counting…" : "Requeue…"}
        </Button>
      </div>
      <AlertDialog open={count !== undefined} onOpenChange={(open) => !open && setCount(undefined)}>
        <AlertDialogContent>
          <AlertDialogHeader>
            <AlertDialogTitle>
              Requeue{" "}
              {count !== undefined && count > MAX
                ? `the oldest ${plural(MAX, "forward")}`
                : plural(confirmed, "forward")}{" "}
              to <span className="font-mono">{name}</span>?
            </AlertDialogTitle>
            <AlertDialogDescription data-testid="requeue-count">
              {count !== undefined && count > MAX
                ? `More than ${plural(MAX, CHOICES[choice] + " forward")} match; the oldest ${MAX.toLocaleString("en")} go now, requeue again for the rest.`
                : `${plural(confirmed, `${CHOICES[choice]} forward`)} go back to pending, each with a fresh set of attempts and the same webhook-id.`}
              {newest && " Forwards a newer state of their entity overtook are left as they are."}
            </AlertDialogDescription>
          </AlertDialogHeader>
          <AlertDialogFooter>
            <AlertDialogCancel>Cancel</AlertDialogCancel>
            <AlertDialogAction onClick={requeue}>Requeue {plural(confirmed, "forward")}</AlertDialogAction>
          </AlertDialogFooter>
        </AlertDialogContent>
      </AlertDialog>
      <RunStatus message={message} />
    </div>
  );
}
