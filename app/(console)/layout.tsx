import { redirect } from "next/navigation";
import type { ReactNode } from "react";
import { NavLink } from "@/components/nav-link";
import { SignOutButton } from "@/components/sign-out-button";
import { can } from "@/lib/auth/roles";
import { getRequestContext } from "../_lib/session";

export const dynamic = "force-dynamic";

export default async function ConsoleLayout({ children }: { children: ReactNode }) {
  const { actor } = await getRequestContext();
  if (!actor) redirect("/sign-in");
  return (
    <div className="shell">
      <nav className="sidebar" aria-label="Console">
        <div className="brand">Webhook Ledger</div>
        <NavLink href="/">Overview</NavLink>
        <NavLink href="/events">Events</NavLink>
        <NavLink href="/sources">Sources</NavLink>
        <NavLink href="/replays">Replays</NavLink>
        <NavLink href="/alerts">Alerts</NavLink>
        <NavLink href="/audit">Audit log</NavLink>
        {can(actor.role, "users.manage") && <NavLink href="/users">Users</NavLink>}
        {can(actor.role, "subjects.erase") && <NavLink href="/erasure">Erasure</NavLink>}
        <NavLink href="/account">Account</NavLink>
        <div className="who">
          <strong>{actor.email}</strong>
          <span>{actor.role}</span>
          <div style={{ marginTop: 8 }}>
            <SignOutButton />
          </div>
        </div>
      </nav>
      <main className="main">{children}</main>
    </div>
  );
}
