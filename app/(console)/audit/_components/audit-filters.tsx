"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import type { FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { Input, Label, NativeSelect } from "@/components/ui/input";
import { auditHref, FILTER_KEYS, OUTCOME_WORDS, type AuditFilterKey } from "./params";

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
      className="mb-4 grid grid-cols-2 gap-3 rounded-lg border bg-card p-3 shadow-xs lg:grid-cols-[minmax(0,1.4fr)_minmax(0,1.2fr)_minmax(0,0.8fr)_minmax(0,1fr)_minmax(0,1fr)_auto]"
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
      <Label>
        Action
        <NativeSelect name="action" defaultValue={filters.action ?? ""}>
          <option value="">All actions</option>
          {options.map((a) => (
            <option key={a} value={a}>
              {a}
            </option>
          ))}
        </NativeSelect>
      </Label>
      <Label>
        Outcome
        <NativeSelect name="result" defaultValue={filters.result ?? ""}>
          <option value="">Any</option>
          {Object.entries(OUTCOME_WORDS).map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </NativeSelect>
      </Label>
      <Label>
        From (UTC)
        <Input
          name="from"
          defaultValue={filters.from ?? ""}
          placeholder="2026-11-29 00:00"
          autoComplete="off"
          spellCheck={false}
        />
      </Label>
      <Label>
        To (UTC)
        <Input
          name="to"
          defaultValue={filters.to ?? ""}
          placeholder="2026-11-29 23:59"
          autoComplete="off"
          spellCheck={false}
        />
      </Label>
      <div className="col-span-2 flex items-end gap-2 lg:col-span-1">
        <Button type="submit">Apply</Button>
        <Button asChild variant="outline">
          <Link href="/audit">Reset</Link>
        </Button>
      </div>
    </form>
  );
}
