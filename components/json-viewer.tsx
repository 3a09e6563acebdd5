"use client";

import { useState } from "react";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const IDENT = /^[A-Za-z_$][\w$]*$/;
const childPath = (path: string, key: string | number) =>
  typeof key === "number" ? `${path}[${key}]` : IDENT.test(key) ? (path ? `${path}.${key}` : key) : `${path}[${JSON.stringify(key)}]`;

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

function Node({ name, value, path, depth }: { name: string | number | undefined; value: Json; path: string; depth: number }) {
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

/** A collapsible payload tree; each row copies its path (data.object.customer) or its value. */
export function JsonViewer({ value }: { value: unknown }) {
  return (
    <div className="json-viewer">
      <Node name={undefined} value={value as Json} path="" depth={0} />
    </div>
  );
}
