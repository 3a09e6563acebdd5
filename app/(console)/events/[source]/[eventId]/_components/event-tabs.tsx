"use client";

import { useSearchParams } from "next/navigation";
import type { MouseEvent, ReactNode } from "react";
import { Tabs } from "@/components/ui/tabs";

/** The tab list's id: a link to a tab scrolls there. */
export const TABS_ID = "event-tabs";

const hrefFor = (params: URLSearchParams, tab: string, first: string) => {
  const q = new URLSearchParams(params.toString());
  if (tab === first) q.delete("tab");
  else q.set("tab", tab);
  const s = q.toString();
  return s ? `?${s}` : window.location.pathname;
};

/**
 * The open tab is the URL's `tab`, so a link can open one and a reload or a shared address keeps it. Next's router
 * follows history.replaceState and pushState (useSearchParams sees them) without asking the server again.
 */
export function EventTabs({ tabs, children }: { tabs: readonly [string, ...string[]]; children: ReactNode }) {
  const params = useSearchParams();
  const asked = params.get("tab");
  const value = tabs.find((t) => t === asked) ?? tabs[0];
  return (
    <Tabs value={value} onValueChange={(next) => window.history.replaceState(null, "", hrefFor(params, next, tabs[0]))}>
      {children}
    </Tabs>
  );
}

/** A link in the page's text that opens one of its tabs (a plain link to the same address without script). */
export function TabLink({ tab, children }: { tab: string; children: ReactNode }) {
  const params = useSearchParams();
  const q = new URLSearchParams(params.toString());
  q.set("tab", tab);
  const href = `?${q.toString()}#${TABS_ID}`;
  const open = (e: MouseEvent<HTMLAnchorElement>) => {
    if (e.metaKey || e.ctrlKey || e.shiftKey || e.altKey || e.button !== 0) return;
    e.preventDefault();
    window.history.pushState(null, "", `?${q.toString()}`);
    requestAnimationFrame(() => document.getElementById(TABS_ID)?.scrollIntoView({ block: "start" }));
  };
  return (
    <a href={href} onClick={open} className="text-primary underline-offset-2 hover:underline">
      {children}
    </a>
  );
}
