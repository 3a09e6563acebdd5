"use client";

import { createContext, useContext, type ReactNode } from "react";

export interface EventBodyValue {
  source: string;
  /** The exact body as received. */
  rawBody: string;
  headers: Record<string, string>;
  /** The stored payload, only when the raw body is not JSON (a row written by hand): the tree shows it instead. */
  fallback?: unknown;
}

const EventBodyContext = createContext<EventBodyValue | undefined>(undefined);

/**
 * The raw body and headers, handed to the browser once for the tree, the raw view and the cURL button
 * (a body can be 1 MB; three props would send it three times).
 */
export function EventBody({ value, children }: { value: EventBodyValue; children: ReactNode }) {
  return <EventBodyContext.Provider value={value}>{children}</EventBodyContext.Provider>;
}

export function useEventBody(): EventBodyValue {
  const value = useContext(EventBodyContext);
  if (!value) throw new Error("useEventBody outside <EventBody>");
  return value;
}
