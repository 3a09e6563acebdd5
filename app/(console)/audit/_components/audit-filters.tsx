"use client";

import Link from "@/components/link";
import { useRouter } from "next/navigation";
import type { FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { cn } from "@/components/ui/cn";
import { Input, Label, NativeSelect } from "@/components/ui/input";
import { auditHref, FILTER_KEYS, OUTCOME_WORDS, type AuditFilterKey } from "./params";

// One row from lg up: actor, action, outcome, from, to, and the buttons.
const WIDE_COLUMNS = "lg:grid-cols-[minmax(0,1.4fr)_minmax(0,1.2fr)_minmax(0,0.8fr)_minmax(0,1fr)_minmax(0,1fr)_auto]";

/** A menu of values for one filter, led by the choice that leaves it out (`any`). */
function SelectFilter({
  label,
  name,
  value,
  any,
  options,
}: {
  label: string;
  name: AuditFilterKey;
  value: string | undefined;
  any: string;
  options: readonly (readonly [value: string, label: string])[];
}) {
  return (
    <Label>
      {label}
      <NativeSelect name={name} defaultValue={value ?? ""}>
        <option value="">{any}</option>
        {options.map(([v, text]) => (
          <option key={v} value={v}>
            {text}
          </option>
        ))}
      </NativeSelect>
    </Label>
  );
}

/** One end of the time window, typed as UTC text (the page parses it). */
function TimeFilter({
  label,
  name,
  value,
  placeholder,
}: {
  label: string;
  name: AuditFilterKey;
  value: string | undefined;
  placeholder: string;
}) {
  return (
    <Label>
      {label}
      <Input name={name} defaultValue={value ?? ""} placeholder={placeholder} autoComplete="off" spellCheck={false} />
    </Label>
  );
}

/**
 * A plain GET form (it works without script; the page then redirects to the clean URL); with script,
 * submitting navigates straight to the URL without the empty fields.
 */
export function AuditFilters({
  filters,
  actions,
}: {
  filters: Partial<Record<AuditFilterKey, string>>;
  actions: string[];
}) {
  const router = useRouter();
  const onSubmit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const next: Partial<Record<AuditFilterKey, string>> = {};
    for (const key of FILTER_KEYS) {
      const value = form.get(key);
      if (typeof value === "string" && value.trim()) next[key] = value.trim();
    }
    router.push(auditHref(next));
  };
  // An action in the URL that the menu does not list yet (a typo, a row since pruned) stays selectable.
  const options = filters.action && !actions.includes(filters.action) ? [filters.action, ...actions] : actions;
  return (
    <form
      action="/audit"
      method="get"
      role="search"
      aria-label="Filter the audit log"
      onSubmit={onSubmit}
      className={cn("mb-4 grid grid-cols-2 gap-3 rounded-lg border bg-card p-3 shadow-xs", WIDE_COLUMNS)}
    >
      <Label className="col-span-2 lg:col-span-1">
        Actor
        <Input
          name="actor"
          type="search"
          defaultValue={filters.actor ?? ""}
          placeholder="someone@example.com"
          autoComplete="off"
          spellCheck={false}
        />
      </Label>
      <SelectFilter
        label="Action"
        name="action"
        value={filters.action}
        any="All actions"
        options={options.map((a) => [a, a] as const)}
      />
      <SelectFilter
        label="Outcome"
        name="result"
        value={filters.result}
        any="Any"
        options={Object.entries(OUTCOME_WORDS)}
      />
      <TimeFilter label="From (UTC)" name="from" value={filters.from} placeholder="2026-11-29 00:00" />
      <TimeFilter label="To (UTC)" name="to" value={filters.to} placeholder="2026-11-29 23:59" />
      <div className="col-span-2 flex items-end gap-2 lg:col-span-1">
        <Button type="submit">Apply</Button>
        <Button asChild variant="outline">
          <Link href="/audit">Reset</Link>
        </Button>
      </div>
    </form>
  );
}
