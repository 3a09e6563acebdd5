"use client";

import { useState, useTransition } from "react";
import { Button } from "@/components/ui/button";
import type { SourceState } from "@/db/schema/sources";
import { setSourceStateAction } from "../actions";
import { STATE_MEANING } from "./format";

const VERBS: Record<SourceState, string> = { active: "Resume", paused: "Pause", disabled: "Disable" };

/** Pause / Resume / Disable, each confirmed with what the endpoint will answer. */
export function StateControls({ slug, state }: { slug: string; state: SourceState }) {
  const [pending, startTransition] = useTransition();
  const [asking, setAsking] = useState<SourceState | undefined>();
  const [message, setMessage] = useState<{ ok: boolean; text: string } | undefined>();
  const targets: SourceState[] =
    state === "active" ? ["paused", "disabled"] : state === "paused" ? ["active", "disabled"] : ["active"];
  const apply = (to: SourceState) =>
    startTransition(async () => {
      const r = await setSourceStateAction({ slug, state: to });
      setAsking(undefined);
      setMessage(r.ok ? { ok: true, text: `Now ${r.data.state}.` } : { ok: false, text: r.error });
    });
  const verb = (to: SourceState) => (to === "active" && state === "disabled" ? "Enable" : VERBS[to]);
  return (
    <div className="flex flex-col gap-2">
      {asking ? (
        <div
          className="flex flex-col gap-2 rounded-md border border-warning/40 bg-warning/10 p-3 text-sm break-words"
          role="alertdialog"
          aria-label={`Confirm: ${verb(asking)}`}
        >
          <p>
            {verb(asking)} <span className="font-mono">{slug}</span>? It then {STATE_MEANING[asking]}.
          </p>
          <div className="flex flex-wrap gap-2">
            <Button
              size="sm"
              variant={asking === "active" ? "default" : "destructive"}
              disabled={pending}
              onClick={() => apply(asking)}
            >
              {verb(asking)}
            </Button>
            <Button size="sm" variant="outline" disabled={pending} onClick={() => setAsking(undefined)}>
              Cancel
            </Button>
          </div>
        </div>
      ) : (
        <div className="flex flex-wrap gap-2">
          {targets.map((to) => (
            <Button
              key={to}
              size="sm"
              variant="outline"
              className={to === "active" ? undefined : "text-destructive"}
              disabled={pending}
              onClick={() => {
                setMessage(undefined);
                setAsking(to);
              }}
            >
              {verb(to)}…
            </Button>
          ))}
        </div>
      )}
      {message && (
        <p role="status" className={message.ok ? "text-xs text-muted-foreground" : "text-xs text-destructive"}>
          {message.text}
        </p>
      )}
    </div>
  );
}
