"use client";

import { useCallback, useSyncExternalStore } from "react";

const listeners = new Set<() => void>();
const subscribe = (l: () => void) => {
  listeners.add(l);
  window.addEventListener("storage", l);
  return () => {
    listeners.delete(l);
    window.removeEventListener("storage", l);
  };
};

/**
 * A JSON value in this browser's localStorage, `fallback` on the server and on first paint, so the
 * server's HTML and the first client render agree (no hydration mismatch). Preferences only: never data.
 */
export function useLocalStorage<T>(
  key: string,
  fallback: string,
  parse: (raw: string) => T,
): [T, (v: unknown) => void] {
  const raw = useSyncExternalStore(
    subscribe,
    () => {
      try {
        return localStorage.getItem(key) ?? fallback;
      } catch {
        return fallback;
      }
    },
    () => fallback,
  );
  const set = useCallback(
    (v: unknown) => {
      localStorage.setItem(key, JSON.stringify(v));
      for (const l of listeners) l();
    },
    [key],
  );
  return [parse(raw), set];
}

/** JSON.parse that answers `fallback` instead of throwing on a damaged value. */
export function parseJson(raw: string, fallback: unknown = null): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return fallback;
  }
}
