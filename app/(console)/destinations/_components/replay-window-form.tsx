"use client";

import { HistoryIcon } from "lucide-react";
import { useActionState, useRef, useState, useTransition } from "react";
import { Field } from "@/components/field";
import { FormMessage } from "@/components/form-message";
import { Time } from "@/components/time";
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
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { UtcInput } from "@/components/utc-input";
import { plural } from "@/lib/format/words";
import { replayWindowAction, type ReplayResult, type ReplayView } from "../actions";

/**
 * Ops: every settled event received in a window, matching the destination's filters, queued again in received
 * order. Asked first: the team's endpoint gets each again (with the webhook-id it saw before).
 */
export function ReplayWindowForm({
  name,
  newest,
  defaultFrom,
  defaultTo,
}: {
  name: string;
  newest: boolean;
  /** 24 h UTC text, "2026-11-29 22:09". */
  defaultFrom: string;
  defaultTo: string;
}) {
  const [open, setOpen] = useState(false);
  const [asking, setAsking] = useState<{ data: FormData; from: string; to: string }>();
  const [state, dispatch, pending] = useActionState<ReplayResult | undefined, FormData>(replayWindowAction, undefined);
  const [, startTransition] = useTransition();
  const form = useRef<HTMLFormElement>(null);
  if (!open)
    return (
      <div>
        <Button size="sm" variant="outline" className="text-foreground" onClick={() => setOpen(true)}>
          <HistoryIcon aria-hidden />
          Replay a window…
        </Button>
      </div>
    );
  return (
    <form
      ref={form}
      className="flex flex-col gap-3 rounded-lg border bg-muted/30 p-3"
      aria-label={`Replay a window to ${name}`}
      onSubmit={(e) => {
        e.preventDefault();
        const data = new FormData(e.currentTarget);
        setAsking({ data, from: String(data.get("from") ?? ""), to: String(data.get("to") ?? "") });
      }}
    >
      <input type="hidden" name="destination" value={name} />
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-2">
        <Field id={`replay-from-${name}`} label="From (UTC)" hint="Received at or after.">
          {(control) => <UtcInput {...control} name="from" defaultValue={defaultFrom} required />}
        </Field>
        <Field id={`replay-to-${name}`} label="To (UTC)" hint="Received before.">
          {(control) => <UtcInput {...control} name="to" defaultValue={defaultTo} required />}
        </Field>
      </div>
      <div className="flex flex-wrap gap-2">
        <Button type="submit" size="sm" disabled={pending}>
          {pending ? "Replaying…" : "Replay…"}
        </Button>
        <Button size="sm" variant="outline" disabled={pending} onClick={() => setOpen(false)}>
          Close
        </Button>
      </div>
      <AlertDialog open={asking !== undefined} onOpenChange={(o) => !o && setAsking(undefined)}>
        <AlertDialogContent>
          <AlertDialogHeader>
            <AlertDialogTitle>
              Replay to <span className="font-mono">{name}</span>?
            </AlertDialogTitle>
            <AlertDialogDescription>
              Every settled event received from {asking?.from} to {asking?.to} UTC that matches its filters is sent
              again, in received order, with the webhook-id it had.
              {newest && " Newest mode: only states newer than what it has are sent."}
            </AlertDialogDescription>
          </AlertDialogHeader>
          <AlertDialogFooter>
            <AlertDialogCancel>Cancel</AlertDialogCancel>
            <AlertDialogAction
              onClick={() => {
                const data = asking?.data;
                setAsking(undefined);
                if (data) startTransition(() => dispatch(data));
              }}
            >
              Replay window
            </AlertDialogAction>
          </AlertDialogFooter>
        </AlertDialogContent>
      </AlertDialog>
      {state?.ok ? <ReplayOutcome r={state.data} /> : <FormMessage state={state} />}
    </form>
  );
}

function ReplayOutcome({ r }: { r: ReplayView }) {
  return (
    <Alert tone={r.cut ? "warning" : "success"} role="status" data-testid="replay-result">
      {plural(r.matched, "event")} in the window: {plural(r.queued, "new forward")}, {r.reset.toLocaleString("en")} sent
      again
      {r.notForwarded > 0 && <>, {r.notForwarded.toLocaleString("en")} recorded as not forwarded (older states)</>}
      {r.unchanged > 0 && <>, {r.unchanged.toLocaleString("en")} left as they were</>}.
      {r.cut && r.resumeFrom && (
        <>
          {" "}
          Stopped at the bound: replay again from <Time value={r.resumeFrom} ms /> UTC for the rest.
        </>
      )}
    </Alert>
  );
}
