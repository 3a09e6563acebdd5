"use client";

import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { Field } from "@/components/field";
import { FormMessage } from "@/components/form-message";
import { Button } from "@/components/ui/button";
import { Input, NativeSelect } from "@/components/ui/input";
import { useKeptFormAction } from "@/components/use-kept-form-action";
import { UtcInput } from "@/components/utc-input";
import type { ReplayFormField, ReplayFormValues } from "@/lib/replay/form";
import { previewReplayAction } from "../actions";

export interface SourceChoice {
  source: string;
  label: string;
  maxDays: number;
}

/** "2026-11-01 09:30": what the inputs take (lib/replay/form.ts reads it back as UTC). */
const utcText = (d: Date) => d.toISOString().slice(0, 16).replace("T", " ");

const RANGES = [
  { label: "1 h", name: "The last hour", hours: 1 },
  { label: "24 h", name: "The last 24 hours", hours: 24 },
  { label: "3 days", name: "The last 3 days", hours: 72 },
] as const;

/**
 * Ops: a source and a window in UTC, typed as 24 h text (a browser's date picker follows the machine's
 * locale); Preview counts what a replay would bring in (a dry run) before anything is written.
 */
export function ReplayForm({ sources, initial }: { sources: SourceChoice[]; initial?: Partial<ReplayFormValues> }) {
  const router = useRouter();
  const { state, dispatch, pending, submit } = useKeptFormAction(previewReplayAction);
  const [values, setValues] = useState<ReplayFormValues>({
    source: initial?.source ?? (sources.length === 1 ? sources[0]!.source : ""),
    since: initial?.since ?? "",
    until: initial?.until ?? "",
    types: initial?.types ?? "",
  });
  // What the action answers with is what was sent: shown again as entered, never cleared.
  const [answered, setAnswered] = useState(state);
  if (answered !== state) {
    setAnswered(state);
    if (state && !state.ok && state.values) setValues(state.values);
  }
  useEffect(() => {
    if (state?.ok) router.push(`/replays?preview=${state.data.runId}`);
  }, [state, router]);

  const set = (field: ReplayFormField) => (e: { target: { value: string } }) =>
    setValues((v) => ({ ...v, [field]: e.target.value }));
  const range = (hours: number) => {
    const now = new Date();
    now.setUTCSeconds(0, 0);
    setValues((v) => ({
      ...v,
      since: utcText(new Date(now.getTime() - hours * 3_600_000)),
      until: utcText(now),
    }));
  };
  const errors = state && !state.ok ? (state.fieldErrors ?? {}) : {};
  const chosen = sources.find((s) => s.source === values.source);

  return (
    <form action={dispatch} onSubmit={submit} noValidate aria-label="Replay a window" className="flex flex-col gap-4">
      <div className="grid grid-cols-1 gap-4 sm:grid-cols-2 lg:grid-cols-4">
        <Field id="replay-source" name="source" label="Source" error={errors.source}>
          {(aria) => (
            <NativeSelect name="source" value={values.source} onChange={set("source")} {...aria}>
              <option value="">Choose a source…</option>
              {sources.map((s) => (
                <option key={s.source} value={s.source}>
                  {s.label}
                </option>
              ))}
            </NativeSelect>
          )}
        </Field>
        <Field
          id="replay-since"
          name="since"
          label="Start (UTC)"
          error={errors.since}
          hint={chosen ? `24 h. A window is at most ${chosen.maxDays} days.` : "24 h, e.g. 2026-11-01 09:30."}
        >
          {(aria) => <UtcInput name="since" value={values.since} onChange={set("since")} {...aria} />}
        </Field>
        <Field id="replay-until" name="until" label="End (UTC)" error={errors.until} hint="24 h. Blank: now.">
          {(aria) => <UtcInput name="until" value={values.until} onChange={set("until")} {...aria} />}
        </Field>
        <Field
          id="replay-types"
          name="types"
          label="Event types"
          error={errors.types}
          hint="Blank: all types. Separate with commas."
        >
          {(aria) => (
            <Input
              name="types"
              value={values.types}
              onChange={set("types")}
              placeholder="invoice.paid, customer.updated"
              autoComplete="off"
              spellCheck={false}
              {...aria}
            />
          )}
        </Field>
      </div>
      <div className="flex flex-wrap items-center gap-2">
        <Button type="submit" disabled={pending}>
          {pending ? "Counting…" : "Preview"}
        </Button>
        <span className="text-xs text-muted-foreground">Last:</span>
        {RANGES.map((r) => (
          <Button key={r.hours} variant="outline" size="sm" aria-label={r.name} onClick={() => range(r.hours)}>
            {r.label}
          </Button>
        ))}
      </div>
      <FormMessage state={state} />
    </form>
  );
}
