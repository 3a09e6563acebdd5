"use client";

import { SearchIcon, XIcon } from "lucide-react";
import { parseAsString, useQueryStates } from "nuqs";
import { useEffect, useRef, useTransition, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { Input, Label, NativeSelect } from "@/components/ui/input";
import { ViewsMenu } from "./views-menu";

const STATUS_WORDS: Record<string, string> = {
  claimed: "waiting",
  processing: "processing",
  settled: "settled",
  failed: "retrying",
  dead: "dead",
};

const keys = {
  q: parseAsString,
  source: parseAsString,
  status: parseAsString,
  type: parseAsString,
  from: parseAsString,
  to: parseAsString,
  test: parseAsString,
  where: parseAsString,
  cursor: parseAsString,
  back: parseAsString,
};
type Field = "q" | "source" | "status" | "type" | "from" | "to" | "test" | "where";
const FIELDS: Field[] = ["q", "source", "status", "type", "from", "to", "test", "where"];

/** "2026-11-29 10:00" as typed: 24 h UTC. The filter parses it (a space or a T between date and time). */
const UTC_PATTERN = String.raw`\d{4}-\d{2}-\d{2}([ T]\d{2}:\d{2}(:\d{2})?)?`;

/**
 * The filter lives in the URL (nuqs): a view is a link, and empty fields leave no `?q=&source=` behind.
 * Applying re-renders the server page (shallow: false) and starts again from the first page.
 */
export function EventsToolbar({
  sources,
  statuses,
  types,
}: {
  sources: readonly string[];
  statuses: readonly string[];
  /** The event types seen, offered as the type filter's suggestions. */
  types: readonly string[];
}) {
  const [pending, startTransition] = useTransition();
  const [url, setUrl] = useQueryStates(keys, { shallow: false, startTransition, history: "push" });
  const values = pick(url);
  const search = useRef<HTMLInputElement>(null);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const t = e.target as HTMLElement | null;
      if (e.key !== "/" || e.metaKey || e.ctrlKey || t?.closest("input, textarea, select, [contenteditable]")) return;
      e.preventDefault();
      search.current?.focus();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);
  const apply = (values: Record<Field, string>) => {
    const next: Record<string, string | null> = { cursor: null, back: null };
    for (const f of FIELDS) next[f] = values[f].trim() === "" ? null : values[f].trim();
    void setUrl(next);
  };
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    apply(Object.fromEntries(FIELDS.map((f) => [f, String(form.get(f) ?? "")])) as Record<Field, string>);
  };
  const active = FIELDS.some((f) => url[f]);
  return (
    <form
      // Keyed by the URL: a saved view or back/forward changes the URL under the form, and the fields follow it.
      key={JSON.stringify(values)}
      onSubmit={submit}
      action="/events"
      method="get"
      role="search"
      aria-busy={pending}
      className="mb-4 flex flex-col gap-3 rounded-lg border bg-card p-3 shadow-xs"
    >
      <div className="flex flex-wrap items-end gap-2">
        <Label className="min-w-0 flex-1 basis-64">
          Search
          <div className="relative">
            <SearchIcon
              aria-hidden="true"
              className="pointer-events-none absolute left-2.5 top-2.5 size-4 text-muted-foreground"
            />
            <Input
              ref={search}
              name="q"
              type="search"
              defaultValue={values.q}
              placeholder="event id, customer id or its start, email, name"
              autoComplete="off"
              spellCheck={false}
              className="pl-8"
            />
          </div>
        </Label>
        <div className="flex flex-wrap gap-2">
          <Button type="submit" disabled={pending}>
            Apply
          </Button>
          {active && (
            <Button type="button" variant="outline" onClick={() => apply(empty())} disabled={pending}>
              <XIcon /> Reset
            </Button>
          )}
          <ViewsMenu />
        </div>
      </div>
      <div className="grid grid-cols-2 gap-2 sm:grid-cols-3 lg:grid-cols-6">
        <Label>
          Source
          <NativeSelect name="source" defaultValue={values.source}>
            <option value="">all</option>
            {sources.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </NativeSelect>
        </Label>
        <Label>
          Status
          <NativeSelect name="status" defaultValue={values.status}>
            <option value="">all</option>
            {statuses.map((s) => (
              <option key={s} value={s}>
                {STATUS_WORDS[s] ?? s}
              </option>
            ))}
          </NativeSelect>
        </Label>
        <Label>
          Type
          <Input
            name="type"
            defaultValue={values.type}
            placeholder="invoice.paid"
            spellCheck={false}
            list="event-types"
            autoComplete="off"
          />
          <datalist id="event-types">
            {types.map((t) => (
              <option key={t} value={t} />
            ))}
          </datalist>
        </Label>
        <Label>
          Tests
          <NativeSelect name="test" defaultValue={values.test}>
            <option value="">included</option>
            <option value="only">only tests</option>
            <option value="hide">hidden</option>
          </NativeSelect>
        </Label>
        <UtcField label="From" name="from" value={values.from} example="2026-11-29 08:00" />
        <UtcField label="To" name="to" value={values.to} example="2026-11-29 18:00" />
      </div>
      <Label>
        Payload condition
        <Input
          name="where"
          defaultValue={values.where}
          placeholder="data.object.status = past_due"
          spellCheck={false}
          autoComplete="off"
          className="font-mono"
          aria-describedby="where-help"
        />
        <span id="where-help" className="text-xs font-normal text-muted-foreground">
          A path, then = (equals), != (differs), ~ (contains, any case), exists or !exists, and a value. Searches the
          events received between From and To (the last 24 h when both are empty; a week at most).
        </span>
      </Label>
    </form>
  );
}

/** A time typed as text in UTC on a 24-hour clock: the browser's locale picker would show AM/PM. */
function UtcField({ label, name, value, example }: { label: string; name: Field; value: string; example: string }) {
  return (
    <Label>
      {label} (UTC, 24 h)
      <Input
        name={name}
        defaultValue={value}
        placeholder={example}
        pattern={UTC_PATTERN}
        title="YYYY-MM-DD HH:MM in UTC, 24-hour clock"
        inputMode="numeric"
        autoComplete="off"
      />
    </Label>
  );
}

function empty(): Record<Field, string> {
  return { q: "", source: "", status: "", type: "", from: "", to: "", test: "", where: "" };
}

function pick(url: Record<string, string | null>): Record<Field, string> {
  const out = empty();
  for (const f of FIELDS) out[f] = url[f] ?? "";
  return out;
}
