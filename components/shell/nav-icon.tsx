import {
  BellRingIcon,
  CircleUserIcon,
  EraserIcon,
  HistoryIcon,
  LayoutDashboardIcon,
  ListIcon,
  OctagonAlertIcon,
  RadioTowerIcon,
  ScrollTextIcon,
  SendIcon,
  UsersIcon,
  type LucideIcon,
} from "lucide-react";
import type { NavIcon as NavIconName } from "./nav-items";

const ICONS: Record<NavIconName, LucideIcon> = {
  overview: LayoutDashboardIcon,
  events: ListIcon,
  failures: OctagonAlertIcon,
  sources: RadioTowerIcon,
  destinations: SendIcon,
  replays: HistoryIcon,
  alerts: BellRingIcon,
  audit: ScrollTextIcon,
  users: UsersIcon,
  erasure: EraserIcon,
  account: CircleUserIcon,
};

export function NavIcon({ name }: { name: NavIconName }) {
  const Icon = ICONS[name];
  return <Icon aria-hidden="true" className="size-4 shrink-0" />;
}
