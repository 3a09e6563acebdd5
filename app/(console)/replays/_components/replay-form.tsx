"use client";

import { useRouter } from "next/navigation";
import { useActionState, useEffect } from "react";
import { FormMessage } from "@/components/form-message";
import { previewReplayAction } from "../actions";

const LABELS = { stripe: "Stripe", github: "GitHub", paddle: "Paddle" } as const;

/** Ops: choose a source and window; Preview counts what a replay would bring in (a dry run) before anything is written. */
export function ReplayForm({ sources }: { sources: Record<keyof typeof LABELS, string | undefined> }) {
  const router = useRouter();
  const [state, action, pending] = useActionState(previewReplayAction, undefined);
  useEffect(() => {
    if (state?.ok) router.push(`/replays?preview=${state.data.runId}`);
  }, [state, router]);
  const unavailable = Object.entries(sources).filter(([, why]) => why);
  return (
    <form className="row panel" action={action} aria-label="Replay a window">
      <label>
        Source
        <select name="source" defaultValue={Object.entries(sources).find(([, why]) => !why)?.[0] ?? "stripe"}>
          {Object.entries(LABELS).map(([value, label]) => (
            <option key={value} value={value} disabled={Boolean(sources[value as keyof typeof LABELS])}>
              {label}
            </option>
          ))}
        </select>
      </label>
      <label>
        Since (UTC)
        <input name="since" type="datetime-local" step={1} required />
      </label>
      <label>
        Until (UTC)
        <input name="until" type="datetime-local" step={1} placeholder="now" />
      </label>
      <label>
        Event types
        <input name="types" placeholder="all (or invoice.paid, …)" />
      </label>
      <button type="submit" disabled={pending}>
        {pending ? "Counting…" : "Preview"}
      </button>
      {state && !state.ok && <FormMessage state={state} success="" />}
      {unavailable.length > 0 && (
        <p className="muted" style={{ flexBasis: "100%", margin: 0 }}>
          Not configured here:{" "}
          {unavailable.map(([s, why]) => `${LABELS[s as keyof typeof LABELS]} (${why})`).join(" · ")}
        </p>
      )}
    </form>
  );
}
