"use client";

import { MenuIcon, PanelLeftCloseIcon, PanelLeftOpenIcon } from "lucide-react";
import Link from "@/components/link";
import { usePathname } from "next/navigation";
import { useState, type ReactNode } from "react";
import { cn } from "@/components/ui/cn";
import { Sheet, SheetContent, SheetTitle, SheetTrigger } from "@/components/ui/sheet";
import { NavIcon } from "./nav-icon";
import { SIDEBAR_COOKIE, type NavItem } from "./nav-items";
import { ThemeToggle } from "./theme-toggle";

const isCurrent = (path: string, href: string) =>
  href === "/" ? path === "/" : path === href || path.startsWith(`${href}/`);

function NavLinks({
  items,
  collapsed,
  onNavigate,
}: {
  items: NavItem[];
  collapsed?: boolean;
  onNavigate?: () => void;
}) {
  const path = usePathname();
  return (
    <ul className="flex flex-col gap-0.5">
      {items.map((item) => (
        <li key={item.href}>
          <Link
            href={item.href}
            onClick={onNavigate}
            title={collapsed ? item.label : undefined}
            aria-current={isCurrent(path, item.href) ? "page" : undefined}
            className={cn(
              "flex h-8 items-center gap-2.5 rounded-md px-2.5 text-sm text-sidebar-foreground",
              "hover:bg-sidebar-accent hover:text-white",
              "aria-[current=page]:bg-sidebar-accent aria-[current=page]:font-medium aria-[current=page]:text-white",
              collapsed && "justify-center px-0",
            )}
          >
            <NavIcon name={item.icon} />
            <span className={cn("truncate", collapsed && "sr-only")}>{item.label}</span>
          </Link>
        </li>
      ))}
    </ul>
  );
}

function Who({
  email,
  role,
  footer,
  collapsed,
}: {
  email: string;
  role: string;
  footer: ReactNode;
  collapsed?: boolean;
}) {
  if (collapsed) return null;
  return (
    <div className="mt-auto flex flex-col gap-2 border-t border-sidebar-border px-2 pt-3 text-xs">
      <div className="min-w-0">
        <strong className="block truncate text-white/90" title={email}>
          {email}
        </strong>
        <span className="text-sidebar-foreground/70">{role}</span>
      </div>
      <div className="flex flex-wrap items-center justify-between gap-2">
        {footer}
        <ThemeToggle />
      </div>
    </div>
  );
}

/**
 * The console's frame: a sidebar on wide screens (collapsible to icons, remembered in a cookie), a top bar
 * with a sheet on narrow ones. The content column is `min-w-0`, so a wide table scrolls inside its own
 * container and the page never scrolls sideways.
 */
export function AppShell({
  items,
  email,
  role,
  footer,
  initialCollapsed,
  children,
}: {
  items: NavItem[];
  email: string;
  role: string;
  footer: ReactNode;
  initialCollapsed: boolean;
  children: ReactNode;
}) {
  const [collapsed, setCollapsed] = useState(initialCollapsed);
  const [open, setOpen] = useState(false);
  const toggle = () => {
    const next = !collapsed;
    setCollapsed(next);
    document.cookie = `${SIDEBAR_COOKIE}=${next ? "collapsed" : "open"}; path=/; max-age=31536000; samesite=lax`;
  };
  return (
    <div className="flex min-h-svh w-full">
      <nav
        aria-label="Console"
        data-collapsed={collapsed || undefined}
        className={cn(
          "sticky top-0 hidden h-svh shrink-0 flex-col gap-3 bg-sidebar px-2 py-3 text-sidebar-foreground md:flex print:hidden",
          collapsed ? "w-14" : "w-56",
        )}
      >
        <div className={cn("flex items-center gap-2 px-1", collapsed ? "justify-center" : "justify-between")}>
          {!collapsed && <span className="truncate px-1.5 text-[15px] font-semibold text-white">Webhook Ledger</span>}
          <button
            type="button"
            onClick={toggle}
            aria-label={collapsed ? "Expand sidebar" : "Collapse sidebar"}
            aria-expanded={!collapsed}
            className="cursor-pointer rounded-md p-1.5 text-sidebar-foreground/80 hover:bg-sidebar-accent hover:text-white"
          >
            {collapsed ? <PanelLeftOpenIcon className="size-4" /> : <PanelLeftCloseIcon className="size-4" />}
          </button>
        </div>
        <NavLinks items={items} collapsed={collapsed} />
        <Who email={email} role={role} footer={footer} collapsed={collapsed} />
      </nav>
      <div className="flex min-w-0 flex-1 flex-col">
        <header className="sticky top-0 z-30 flex h-12 items-center gap-2 border-b bg-sidebar px-3 text-sidebar-foreground md:hidden print:hidden">
          <Sheet open={open} onOpenChange={setOpen}>
            <SheetTrigger
              aria-label="Open menu"
              className="cursor-pointer rounded-md p-1.5 hover:bg-sidebar-accent hover:text-white"
            >
              <MenuIcon className="size-5" />
            </SheetTrigger>
            <SheetContent className="gap-3 px-2 py-3">
              <SheetTitle className="px-2.5 text-[15px] font-semibold text-white">Webhook Ledger</SheetTitle>
              <nav aria-label="Console menu">
                <NavLinks items={items} onNavigate={() => setOpen(false)} />
              </nav>
              <Who email={email} role={role} footer={footer} />
            </SheetContent>
          </Sheet>
          <span className="truncate font-semibold text-white">Webhook Ledger</span>
        </header>
        <main id="main" className="mx-auto w-full min-w-0 max-w-[1400px] flex-1 px-4 py-5 md:px-7 md:py-6">
          {children}
        </main>
      </div>
    </div>
  );
}
