"use client";

import { useMemo } from "react";
import { JsonViewer, type JsonPath } from "@/components/json-viewer";
import { useEventBody } from "./event-body";

function parse(raw: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(raw) as unknown };
  } catch {
    return { ok: false };
  }
}

/** The payload tree, read from the raw body so keys keep the provider's order (jsonb sorts them by length). */
export function PayloadPanel({ focus }: { focus?: JsonPath }) {
  const { rawBody, fallback } = useEventBody();
  const value = useMemo(() => {
    const parsed = parse(rawBody);
    return parsed.ok ? parsed.value : fallback;
  }, [rawBody, fallback]);
  return <JsonViewer value={value} raw={rawBody} focus={focus} />;
}
