"use client";

import { ChevronRightIcon } from "lucide-react";
import { useEffect, useMemo, useRef, useState, type MouseEvent } from "react";
import { Time } from "./time";
import { cn } from "./ui/cn";
import { plural } from "@/lib/format/words";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
/** A node's place in the tree: object keys and array indexes from the root, e.g. ["data", "object", "customer"]. */
export type JsonPath = readonly (string | number)[];

const IDENT = /^[A-Za-z_$][\w$]*$/;
const childPath = (path: string, key: string | number) =>
  typeof key === "number"
    ? `${path}[${key}]`
    : IDENT.test(key)
      ? path
        ? `${path}.${key}`
        : key
      : `${path}[${JSON.stringify(key)}]`;

function CopyButtons({ path, value }: { path: string; value: Json }) {
  const [copied, setCopied] = useState<string | undefined>();
  const copy = (what: "path" | "value") => (e: MouseEvent) => {
    // Inside a <summary> a click would also open or close the node.
    e.preventDefault();
    e.stopPropagation();
    const text = what === "path" ? path : typeof value === "string" ? value : JSON.stringify(value, null, 2);
    void navigator.clipboard?.writeText(text).then(() => {
      setCopied(what);
      setTimeout(() => setCopied(undefined), 1200);
    });
  };
  const button = cn(
    "cursor-pointer rounded border border-border bg-card px-1 py-0 font-sans text-[0.6875rem] leading-4",
    "text-muted-foreground hover:bg-accent hover:text-accent-foreground",
  );
  return (
    // Over the row's end, not in its flow: hidden buttons that wrapped would leave blank lines on a phone.
    <span
      className={cn(
        "absolute top-0.5 right-1 inline-flex gap-1 pointer-events-none rounded bg-muted opacity-0",
        "group-focus-within/row:pointer-events-auto group-focus-within/row:opacity-100",
        "group-hover/row:pointer-events-auto group-hover/row:opacity-100",
      )}
    >
      <button type="button" className={button} onClick={copy("path")} title={`Copy the path ${path || "(root)"}`}>
        {copied === "path" ? "copied" : "path"}
      </button>
      <button type="button" className={button} onClick={copy("value")} title="Copy the value">
        {copied === "value" ? "copied" : "value"}
      </button>
    </span>
  );
}

// A key that names a moment (created, current_period_end, canceled_at, event_time …) and a number in the range
// of unix seconds or milliseconds from 2001 to 2286: shown with its date beside it, since nobody reads 1712917129.
const TIME_KEY = /(^|_)(created|updated|time|timestamp|date|start|end|anchor|due|until|expires?|since|at|on)$/i;
const isUnixTime = (name: string | number | undefined, v: number) =>
  typeof name === "string" &&
  TIME_KEY.test(name) &&
  Number.isSafeInteger(v) &&
  ((v >= 1e9 && v < 1e10) || (v >= 1e12 && v < 1e13));

function Scalar({
  name,
  value,
}: {
  name: string | number | undefined;
  value: Exclude<Json, Json[] | { [key: string]: Json }>;
}) {
  // Text nodes only: payloads are attacker-controlled, so nothing here is ever parsed as HTML or a link.
  if (value === null) return <span className="text-muted-foreground italic">null</span>;
  if (typeof value === "string") return <span className="text-success">&quot;{value}&quot;</span>;
  if (typeof value === "number")
    return (
      <>
        <span className="text-warning">{String(value)}</span>
        {isUnixTime(name, value) && (
          <span
            data-jv="date"
            className="ml-2 inline-block rounded bg-muted px-1 whitespace-nowrap font-sans text-[0.6875rem] text-muted-foreground"
          >
            <Time value={value} />
          </span>
        )}
      </>
    );
  return <span className="text-primary">{String(value)}</span>;
}

const rowClass = (focused: boolean) =>
  cn(
    // Inline flow, not flex: a long value wraps onto the next line at the row's full width, not in a narrow column.
    "group/row relative block min-w-0 rounded px-1 [overflow-wrap:anywhere] hover:bg-muted",
    focused && "bg-warning/15 ring-1 ring-warning/60 hover:bg-warning/20",
  );

function Key({ name }: { name: string | number | undefined }) {
  if (name === undefined) return null;
  return (
    <span data-jv="key" className="text-primary">
      {name}
      <span className="text-muted-foreground">: </span>
    </span>
  );
}

function Node({
  name,
  value,
  path,
  depth,
  focus,
}: {
  name: string | number | undefined;
  value: Json;
  path: string;
  depth: number;
  /** The rest of the path to the node to show and highlight: [] is this node. */
  focus: JsonPath | undefined;
}) {
  const focused = focus?.length === 0;
  if (value === null || typeof value !== "object") {
    return (
      <div className={rowClass(focused)} data-path={path} data-focused={focused || undefined}>
        <Key name={name} />
        <Scalar name={name} value={value} />
        <CopyButtons path={path} value={value} />
      </div>
    );
  }
  const entries: [string | number, Json][] = Array.isArray(value) ? value.map((v, i) => [i, v]) : Object.entries(value);
  const [open, close] = Array.isArray(value) ? ["[", "]"] : ["{", "}"];
  const onPath = focus !== undefined;
  return (
    <details className="group/node" open={onPath || (depth < 3 && entries.length <= 200)} data-path={path}>
      <summary
        className={cn(rowClass(focused), "cursor-pointer list-none [&::-webkit-details-marker]:hidden")}
        data-focused={focused || undefined}
      >
        <ChevronRightIcon
          aria-hidden
          className="mr-0.5 inline size-3 align-[-1px] text-muted-foreground transition-transform group-open/node:rotate-90"
        />
        <Key name={name} />
        <span className="text-muted-foreground">{open}</span>
        <span className="ml-1.5 font-sans text-[0.6875rem] text-muted-foreground">
          {plural(entries.length, Array.isArray(value) ? "item" : "key")}
        </span>
        <CopyButtons path={path} value={value} />
      </summary>
      <div className="ml-[0.6875rem] border-l pl-2">
        {entries.map(([k, v]) => (
          <Node
            key={k}
            name={k}
            value={v}
            path={childPath(path, k)}
            depth={depth + 1}
            focus={
              focus !== undefined && focus.length > 0 && String(focus[0]) === String(k) ? focus.slice(1) : undefined
            }
          />
        ))}
      </div>
      <div className="pl-4 text-muted-foreground">{close}</div>
    </details>
  );
}

/**
 * Past any of these a payload is shown as text, not as a tree. Every stored payload reaches this
 * page, including rows older than the receiver's depth check: a tree of 5,000 levels overflows the
 * renderer, and every row repeats its path, so a deep or wide tree's HTML grows with its square.
 */
const TREE_LIMITS = { depth: 32, bytes: 256 * 1024, nodes: 5000, pathChars: 512 * 1024 };

const keyPathChars = (key: string | number) =>
  typeof key === "number" ? String(key).length + 2 : IDENT.test(key) ? key.length + 1 : JSON.stringify(key).length + 2;

/** Why the value is too deep or too large for a tree, or undefined; a loop that stops at the first limit passed. */
function tooBigForTree(value: unknown): string | undefined {
  let bytes = 0;
  let nodes = 0;
  let pathChars = 0;
  const stack: [unknown, number, number][] = [[value, 0, 0]];
  while (stack.length > 0) {
    const [v, depth, pathLength] = stack.pop()!;
    nodes++;
    pathChars += pathLength;
    if (nodes > TREE_LIMITS.nodes) return `it has more than ${TREE_LIMITS.nodes.toLocaleString("en")} values`;
    if (pathChars > TREE_LIMITS.pathChars) return "its paths are too long to show each one";
    if (v === null || typeof v !== "object") {
      bytes += typeof v === "string" ? v.length + 2 : 8;
      if (bytes > TREE_LIMITS.bytes) return `it is larger than ${TREE_LIMITS.bytes / 1024} KB`;
      continue;
    }
    if (depth >= TREE_LIMITS.depth) return `it nests deeper than ${TREE_LIMITS.depth} levels`;
    if (nodes + (Array.isArray(v) ? v.length : Object.keys(v).length) > TREE_LIMITS.nodes)
      return `it has more than ${TREE_LIMITS.nodes.toLocaleString("en")} values`;
    const entries: [string | number, unknown][] = Array.isArray(v) ? v.map((x, i) => [i, x]) : Object.entries(v);
    for (const [k, child] of entries) {
      bytes += typeof k === "string" ? k.length + 3 : 1;
      stack.push([child, depth + 1, pathLength + keyPathChars(k)]);
    }
    if (bytes > TREE_LIMITS.bytes) return `it is larger than ${TREE_LIMITS.bytes / 1024} KB`;
  }
  return undefined;
}

type Frame = { items: unknown[]; i: number; close: "]" } | { items: [string, unknown][]; i: number; close: "}" };

/** Compact JSON text of at most `max` characters, built with a loop: JSON.stringify recurses, and pretty-printing grows with depth squared. */
function boundedText(value: unknown, max: number): { text: string; truncated: boolean } {
  const out: string[] = [];
  let length = 0;
  const stack: Frame[] = [];
  const emit = (s: string) => {
    out.push(s);
    length += s.length;
  };
  const start = (v: unknown) => {
    if (Array.isArray(v)) {
      emit("[");
      stack.push({ items: v as unknown[], i: 0, close: "]" });
    } else if (v !== null && typeof v === "object") {
      emit("{");
      stack.push({ items: Object.entries(v), i: 0, close: "}" });
    } else emit(typeof v === "number" && !Number.isFinite(v) ? "null" : (JSON.stringify(v) ?? "null"));
  };
  start(value);
  while (stack.length > 0 && length <= max) {
    const frame = stack[stack.length - 1]!;
    if (frame.i >= frame.items.length) {
      emit(frame.close);
      stack.pop();
      continue;
    }
    if (frame.i > 0) emit(",");
    if (frame.close === "]") start(frame.items[frame.i++]);
    else {
      const [k, v] = frame.items[frame.i++]!;
      emit(`${JSON.stringify(k)}:`);
      start(v);
    }
  }
  const text = out.join("");
  return text.length > max ? { text: text.slice(0, max), truncated: true } : { text, truncated: false };
}

/**
 * A collapsible payload tree in its own scrolling box; each row copies its path (data.object.customer) or its
 * value. `focus` names a node (the path an error names): it and its ancestors open, it is highlighted and
 * scrolled to. A payload too deep or too large for a tree is shown as text instead (at most 256 KB of it), with
 * a note. `raw`: the text as received, shown in that case rather than a re-serialisation of `value`.
 */
export function JsonViewer({
  value,
  raw,
  focus,
  className,
}: {
  value: unknown;
  raw?: string;
  focus?: JsonPath;
  className?: string;
}) {
  const tooBig = useMemo(() => tooBigForTree(value), [value]);
  const box = useRef<HTMLDivElement>(null);
  const focusKey = focus?.join("\u0000");
  useEffect(() => {
    const el = box.current;
    const target = el?.querySelector<HTMLElement>("[data-focused]");
    if (!el || !target) return;
    // Scroll the box, not the page: the summary above stays where the reader is.
    const offset = target.getBoundingClientRect().top - el.getBoundingClientRect().top;
    el.scrollTop += offset - el.clientHeight / 3;
  }, [focusKey]);
  const boxClass = cn(
    "max-h-[70vh] overflow-auto rounded-md border bg-muted/30 p-2 font-mono text-xs leading-5",
    className,
  );
  if (tooBig) {
    const shown =
      raw !== undefined
        ? { text: raw.slice(0, TREE_LIMITS.bytes), truncated: raw.length > TREE_LIMITS.bytes }
        : boundedText(value, TREE_LIMITS.bytes);
    return (
      <div data-json-viewer="" data-tree="off" className="flex min-w-0 flex-col gap-2">
        <p className="text-sm text-muted-foreground" role="note">
          Shown as text, not as a tree: {tooBig}.
          {shown.truncated &&
            ` Only the first ${TREE_LIMITS.bytes / 1024} KB are shown; Download JSON has the whole record.`}
        </p>
        <pre className={cn(boxClass, "whitespace-pre-wrap [overflow-wrap:anywhere]")}>{shown.text}</pre>
      </div>
    );
  }
  return (
    <div ref={box} data-json-viewer="" className={boxClass}>
      <Node name={undefined} value={value as Json} path="" depth={0} focus={focus} />
    </div>
  );
}
