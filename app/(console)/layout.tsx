import { cookies, headers } from "next/headers";
import { redirect } from "next/navigation";
import { NuqsAdapter } from "nuqs/adapters/next/app";
import type { ReactNode } from "react";
import { AppShell } from "@/components/shell/app-shell";
import { SIDEBAR_COOKIE, type NavItem } from "@/components/shell/nav-items";
import { SignOutButton } from "@/components/sign-out-button";
import { can } from "@/lib/roles";
import type { Role } from "@/lib/auth/role-names";
import { getRequestContext } from "../_lib/session";
import { signInPath } from "../sign-in/safe-next";

export const dynamic = "force-dynamic";

function navFor(role: Role): NavItem[] {
  const items: (NavItem | false)[] = [
    { href: "/", label: "Overview", icon: "overview" },
    { href: "/events", label: "Events", icon: "events" },
    { href: "/failures", label: "Failures", icon: "failures" },
    { href: "/sources", label: "Sources", icon: "sources" },
    { href: "/destinations", label: "Destinations", icon: "destinations" },
    { href: "/replays", label: "Replays", icon: "replays" },
    { href: "/alerts", label: "Alerts", icon: "alerts" },
    { href: "/audit", label: "Audit log", icon: "audit" },
    can(role, "users.manage") && { href: "/users", label: "Users", icon: "users" },
    can(role, "subjects.erase") && { href: "/erasure", label: "Erasure", icon: "erasure" },
    { href: "/account", label: "Account", icon: "account" },
  ];
  return items.filter((i): i is NavItem => i !== false);
}

export default async function ConsoleLayout({ children }: { children: ReactNode }) {
  const { actor } = await getRequestContext();
  // A session that has ended (signed out elsewhere, expired, its user disabled) still sends its cookie, so the
  // proxy let the request through; the person goes to sign-in and back to the page they asked for.
  if (!actor) redirect(signInPath((await headers()).get("x-return-to") ?? "/"));
  const collapsed = (await cookies()).get(SIDEBAR_COOKIE)?.value === "collapsed";
  return (
    <AppShell
      items={navFor(actor.role)}
      email={actor.email}
      role={actor.role}
      footer={<SignOutButton />}
      initialCollapsed={collapsed}
    >
      <NuqsAdapter>{children}</NuqsAdapter>
    </AppShell>
  );
}
