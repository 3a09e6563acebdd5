"use client";

import { useState, useTransition } from "react";
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
    <div className="bulk">
      {asking ? (
        <span className="confirm" role="alertdialog" aria-label={`Confirm: ${verb(asking)}`}>
          {verb(asking)} {slug}? It then {STATE_MEANING[asking]}.
          <button
            type="button"
            className={asking === "active" ? undefined : "danger"}
            disabled={pending}
            onClick={() => apply(asking)}
          >
            {verb(asking)}
          </button>
          <button type="button" className="secondary" disabled={pending} onClick={() => setAsking(undefined)}>
            Cancel
          </button>
        </span>
      ) : (
        targets.map((to) => (
          <button
            key={to}
            type="button"
            className={to === "active" ? "secondary" : "danger"}
            disabled={pending}
            onClick={() => {
              setMessage(undefined);
              setAsking(to);
            }}
          >
            {verb(to)}…
          </button>
        ))
      )}
      {message && (
        <span role="status" className={message.ok ? "muted" : "notice error"}>
          {message.text}
        </span>
      )}
    </div>
  );
}
