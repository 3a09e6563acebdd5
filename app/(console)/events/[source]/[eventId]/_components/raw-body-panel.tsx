"use client";

import { useMemo, useState } from "react";
import { CopyButton } from "@/components/copy-button";
import { cn } from "@/components/ui/cn";
import { useEventBody } from "./event-body";
import { plural } from "@/lib/format/words";

/** The text without the whitespace JSON ignores (outside strings): what a re-serialisation would keep. */
function withoutInsignificantSpace(text: string): string {
  let out = "";
  let inString = false;
  let escaped = false;
  for (const ch of text) {
    if (inString) {
      out += ch;
      if (escaped) escaped = false;
      else if (ch === "\\") escaped = true;
      else if (ch === '"') inString = false;
    } else if (ch === '"') {
      inString = true;
      out += ch;
    } else if (ch !== " " && ch !== "\n" && ch !== "\r" && ch !== "\t") out += ch;
  }
  return out;
}

type Pretty = { ok: true; text: string; compact: string } | { ok: false; reason: string };

function prettyOf(raw: string): Pretty {
  try {
    const value: unknown = JSON.parse(raw);
    return { ok: true, text: JSON.stringify(value, null, 2), compact: JSON.stringify(value) };
  } catch (err) {
    // Not JSON (a row written by hand), or nested past what the browser's stack takes.
    return { ok: false, reason: err instanceof RangeError ? "it nests too deep to re-indent" : "it is not JSON" };
  }
}

function differenceNote(raw: string, pretty: Pretty): string {
  if (!pretty.ok) return `Only the raw bytes can be shown: ${pretty.reason}.`;
  if (pretty.text === raw) return "The provider sent it indented like this: pretty and raw are the same bytes.";
  if (withoutInsignificantSpace(raw) === pretty.compact)
    return "Pretty differs from the bytes received in whitespace only. The signature covers the raw bytes: copy those to re-verify.";
  return (
    "Pretty also rewrites values (number formats, escapes or repeated keys differ from the bytes received). " +
    "The signature covers the raw bytes: copy those to re-verify."
  );
}

/** The body exactly as received (byte-exact, the evidence) or re-indented, with a copy button for what is shown. */
export function RawBodyPanel() {
  const { rawBody } = useEventBody();
  const [mode, setMode] = useState<"raw" | "pretty">("raw");
  const pretty = useMemo(() => prettyOf(rawBody), [rawBody]);
  const shown = mode === "pretty" && pretty.ok ? pretty.text : rawBody;
  const bytes = useMemo(() => new TextEncoder().encode(rawBody).length, [rawBody]);
  const toggle = (m: "raw" | "pretty", label: string) => (
    <button
      type="button"
      aria-pressed={mode === m}
      onClick={() => setMode(m)}
      className={cn(
        "cursor-pointer rounded border-0 bg-transparent px-2.5 py-1 text-xs font-medium",
        "text-muted-foreground hover:text-foreground",
        "aria-pressed:bg-card aria-pressed:text-foreground aria-pressed:shadow-xs",
      )}
    >
      {label}
    </button>
  );
  return (
    <div className="flex min-w-0 flex-col gap-2">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <div className="inline-flex rounded-md bg-muted p-0.5" role="group" aria-label="Body view">
          {toggle("raw", "Raw")}
          {pretty.ok && toggle("pretty", "Pretty")}
        </div>
        <span className="text-xs text-muted-foreground">{plural(bytes, "byte")} as received</span>
        <CopyButton text={shown} label={mode === "raw" ? "Copy raw body" : "Copy pretty JSON"} />
      </div>
      <p className="text-xs text-muted-foreground" role="note" data-body-note="">
        {differenceNote(rawBody, pretty)}
      </p>
      <pre
        data-raw-body={mode}
        className="max-h-[70vh] overflow-auto whitespace-pre-wrap rounded-md border bg-muted/30 p-3 font-mono text-xs leading-5 [overflow-wrap:anywhere]"
      >
        {shown}
      </pre>
    </div>
  );
}
