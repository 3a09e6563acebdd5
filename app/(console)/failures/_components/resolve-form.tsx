"use client";

import { useActionState, useState, useTransition, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { Label, Textarea } from "@/components/ui/input";
import type { ActionResult } from "../../../_lib/action-result";
import type { ResolveDeadResult } from "@/lib/console/resolve-dead";
import { resolveDeadAction } from "../actions";
import { useAnnounce } from "./announcer";

export type Resolution = "resolved" | "ignored";

const NOTE_MAX = 500;
const events = (n: number) => `${n.toLocaleString("en")} event${n === 1 ? "" : "s"}`;

/** The decision on the selected dead events, with the note the audit log and the event page keep. */
export function ResolveForm({
  resolution,
  keys,
  onDone,
  onCancel,
}: {
  resolution: Resolution;
  /** Each `["source","eventId"]` as JSON. */
  keys: string[];
  onDone: () => void;
  onCancel: () => void;
}) {
  const announce = useAnnounce();
  const [note, setNote] = useState("");
  const [, startTransition] = useTransition();
  const [state, formAction, pending] = useActionState(
    async (prev: ActionResult<ResolveDeadResult> | undefined, form: FormData) => {
      const result = await resolveDeadAction(prev, form);
      if (result.ok) {
        const { resolved, notDead } = result.data;
        const skipped = notDead.length
          ? ` ${events(notDead.length)} ${notDead.length === 1 ? "was" : "were"} no longer dead and left as ${notDead.length === 1 ? "it was" : "they were"}.`
          : "";
        announce({
          ok: true,
          text: `${resolution === "resolved" ? "Resolved" : "Ignored"} ${events(resolved)} by hand.${skipped}`,
        });
        onDone();
      }
      return result;
    },
    undefined,
  );
  // Submitted by hand rather than through the form's action prop: React resets a form after its action,
  // and a refused note (too long, say) should stay as it was typed.
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    startTransition(() => formAction(form));
  };
  const verb = resolution === "resolved" ? "Resolve" : "Ignore";
  return (
    <form
      onSubmit={submit}
      aria-label={`${verb} selected dead events`}
      className="flex flex-col gap-3 rounded-lg border bg-card p-4 shadow-xs"
    >
      <p className="text-sm">
        {resolution === "resolved"
          ? `Mark ${events(keys.length)} as resolved by hand: the work was done outside the ledger. They settle without running again.`
          : `Ignore ${events(keys.length)}: nothing needs doing. They settle without running again.`}
      </p>
      {keys.map((k) => (
        <input key={k} type="hidden" name="key" value={k} />
      ))}
      <input type="hidden" name="resolution" value={resolution} />
      <Label>
        Note (required)
        <Textarea
          name="note"
          required
          maxLength={NOTE_MAX}
          value={note}
          onChange={(e) => setNote(e.target.value)}
          placeholder={
            resolution === "resolved" ? "What was done, where (a ticket, a refund id)…" : "Why no work is needed…"
          }
          className="text-foreground"
        />
        <span className="font-normal">
          {note.length} / {NOTE_MAX}
        </span>
      </Label>
      {state && !state.ok && (
        <p role="alert" className="text-sm text-destructive">
          {state.error}
        </p>
      )}
      <div className="flex flex-wrap gap-2">
        <Button type="submit" disabled={pending || note.trim() === ""}>
          {verb} {events(keys.length)}
        </Button>
        <Button variant="outline" className="text-foreground" disabled={pending} onClick={onCancel}>
          Cancel
        </Button>
      </div>
    </form>
  );
}
