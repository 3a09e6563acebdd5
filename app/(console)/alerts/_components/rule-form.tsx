"use client";

import { useActionState, useState, useTransition } from "react";
import { FormMessage } from "@/components/form-message";
import { resetAlertRuleAction, setAlertRuleAction } from "../actions";

/** An admin's controls for one rule: on or off, its threshold, and going back to the deploy's default. */
export function RuleForm({
  rule,
  label,
  unit,
  min,
  max,
  enabled,
  threshold,
  fromConsole,
}: {
  rule: string;
  label: string;
  unit?: string;
  min?: number;
  max?: number;
  enabled: boolean;
  threshold: number | null;
  fromConsole: boolean;
}) {
  const [state, action, pending] = useActionState(setAlertRuleAction, undefined);
  const [resetting, startReset] = useTransition();
  const [resetError, setResetError] = useState<string | undefined>();
  return (
    <form className="row" action={action} aria-label={`Rule: ${label}`}>
      <input type="hidden" name="rule" value={rule} />
      <label className="choice">
        <input type="checkbox" name="enabled" defaultChecked={enabled} style={{ height: "auto" }} />
        On
      </label>
      {unit && (
        <label style={{ minWidth: 0, maxWidth: "100%" }}>
          Threshold ({unit})
          <input
            name="threshold"
            type="number"
            inputMode="numeric"
            min={min}
            max={max}
            step={1}
            defaultValue={threshold ?? undefined}
            required
            style={{ width: 110, maxWidth: "100%" }}
          />
        </label>
      )}
      <button type="submit" disabled={pending}>
        Save
      </button>
      {fromConsole && (
        <button
          type="button"
          className="secondary"
          style={{ whiteSpace: "normal" }}
          disabled={resetting}
          onClick={() =>
            startReset(async () => {
              const result = await resetAlertRuleAction({ rule });
              setResetError(result.ok ? undefined : result.error);
            })
          }
        >
          Use the deploy&apos;s default
        </button>
      )}
      <FormMessage state={state} success="Saved: the evaluator applies it on its next round." />
      {resetError && (
        <span className="notice error" role="alert">
          {resetError}
        </span>
      )}
    </form>
  );
}
