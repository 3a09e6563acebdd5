"use client";

import { useMemo, useState } from "react";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

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
  const copy = (what: "path" | "value") => {
    const text = what === "path" ? path : typeof value === "string" ? value : JSON.stringify(value, null, 2);
    void navigator.clipboard?.writeText(text).then(() => {
      setCopied(what);
      setTimeout(() => setCopied(undefined), 1200);
    });
  };
  return (
    <span className="jv-copy">
      <button type="button" onClick={() => copy("path")} title={`Copy the path ${path || "(root)"}`}>
        {copied === "path" ? "copied" : "path"}
      </button>
      <button type="button" onClick={() => copy("value")} title="Copy the value">
        {copied === "value" ? "copied" : "value"}
      </button>
    </span>
  );
}

function Scalar({ value }: { value: Exclude<Json, Json[] | { [key: string]: Json }> }) {
  // Text nodes only: payloads are attacker-controlled, so nothing here is ever parsed as HTML or a link.
  if (value === null) return <span className="jv-null">null</span>;
  if (typeof value === "string") return <span className="jv-string">&quot;{value}&quot;</span>;
  if (typeof value === "number") return <span className="jv-number">{String(value)}</span>;
  return <span className="jv-bool">{String(value)}</span>;
}

function Node({
  name,
  value,
  path,
  depth,
}: {
  name: string | number | undefined;
  value: Json;
  path: string;
  depth: number;
}) {
  const label = name === undefined ? null : <span className="jv-key">{typeof name === "number" ? name : name}: </span>;
  if (value === null || typeof value !== "object") {
    return (
      <div className="jv-row" data-path={path}>
        {label}
        <Scalar value={value} />
        <CopyButtons path={path} value={value} />
      </div>
    );
  }
  const entries: [string | number, Json][] = Array.isArray(value) ? value.map((v, i) => [i, v]) : Object.entries(value);
  const [open, close] = Array.isArray(value) ? ["[", "]"] : ["{", "}"];
  return (
    <details className="jv-node" open={depth < 3 && entries.length <= 200} data-path={path}>
      <summary className="jv-row">
        {label}
        <span className="jv-brace">{open}</span>
        <span className="jv-count">
          {entries.length} {Array.isArray(value) ? "items" : "keys"}
        </span>
        <CopyButtons path={path} value={value} />
      </summary>
      <div className="jv-children">
        {entries.map(([k, v]) => (
          <Node key={k} name={k} value={v} path={childPath(path, k)} depth={depth + 1} />
        ))}
      </div>
      <div className="jv-brace">{close}</div>
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
 * A collapsible payload tree; each row copies its path (data.object.customer) or its value. A payload
 * too deep or too large for a tree is shown as text instead (at most 256 KB of it), with a note.
 * `raw`: the text as received, shown in that case rather than a re-serialisation of `value`.
 */
export function JsonViewer({ value, raw }: { value: unknown; raw?: string }) {
  const tooBig = useMemo(() => tooBigForTree(value), [value]);
  if (tooBig) {
    const shown =
      raw !== undefined
        ? { text: raw.slice(0, TREE_LIMITS.bytes), truncated: raw.length > TREE_LIMITS.bytes }
        : boundedText(value, TREE_LIMITS.bytes);
    return (
      <div className="json-viewer" data-tree="off">
        <p className="muted jv-note" role="note">
          Shown as text, not as a tree: {tooBig}.
          {shown.truncated &&
            ` Only the first ${TREE_LIMITS.bytes / 1024} KB are shown; Download JSON has the whole record.`}
        </p>
        <pre className="raw">{shown.text}</pre>
      </div>
    );
  }
  return (
    <div className="json-viewer">
      <Node name={undefined} value={value as Json} path="" depth={0} />
    </div>
  );
}
