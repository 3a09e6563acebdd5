"use client";

import { useState, useTransition } from "react";
import { useKeptFormAction } from "@/components/use-kept-form-action";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Input, Label } from "@/components/ui/input";
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
  const { state, dispatch, pending, submit } = useKeptFormAction(setAlertRuleAction);
  const [resetting, startReset] = useTransition();
  const [resetError, setResetError] = useState<string | undefined>();
  return (
    <form
      action={dispatch}
      onSubmit={submit}
      aria-label={`Rule: ${label}`}
      className="flex flex-col gap-2 border-t pt-3"
    >
      <input type="hidden" name="rule" value={rule} />
      <div className="flex flex-wrap items-end gap-3">
        <label className="flex h-9 items-center gap-2 text-sm">
          <input type="checkbox" name="enabled" defaultChecked={enabled} className="size-4 accent-primary" />
          On
        </label>
        {unit && (
          <Label>
            Threshold ({unit})
            <Input
              name="threshold"
              type="number"
              inputMode="numeric"
              min={min}
              max={max}
              step={1}
              defaultValue={threshold ?? undefined}
              required
              className="w-28"
            />
          </Label>
        )}
        <Button type="submit" size="sm" className="h-9" disabled={pending}>
          Save
        </Button>
        {fromConsole && (
          <Button
            variant="outline"
            size="sm"
            className="h-9 whitespace-normal"
            disabled={resetting}
            onClick={() =>
              startReset(async () => {
                const result = await resetAlertRuleAction({ rule });
                setResetError(result.ok ? undefined : result.error);
              })
            }
          >
            Use the deploy&apos;s default
          </Button>
        )}
      </div>
      {state && (
        <Alert tone={state.ok ? "success" : "danger"} role={state.ok ? "status" : "alert"}>
          {state.ok ? "Saved: the evaluator applies it on its next round." : state.error}
        </Alert>
      )}
      {resetError && (
        <Alert tone="danger" role="alert">
          {resetError}
        </Alert>
      )}
    </form>
  );
}
