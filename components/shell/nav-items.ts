/** The console's sections; the layout filters them by role and the shell draws them. */
export const NAV_ICONS = [
  "overview",
  "events",
  "failures",
  "sources",
  "destinations",
  "replays",
  "alerts",
  "audit",
  "users",
  "erasure",
  "account",
] as const;
export type NavIcon = (typeof NAV_ICONS)[number];

export interface NavItem {
  href: string;
  label: string;
  icon: NavIcon;
}

/** Remembers a collapsed sidebar across pages and reloads (read by the server layout: no flash). */
export const SIDEBAR_COOKIE = "ledger_sidebar";
