import Link from "@/components/link";
import type { ReactNode } from "react";
import { cn } from "./ui/cn";

/** A page's `crumbs`: the page it sits under, as a link, then the rest of the way: "Events / stripe". */
export function Breadcrumb({ href, parent, children }: { href: string; parent: string; children: ReactNode }) {
  return (
    <>
      <Link href={href} className="hover:text-foreground hover:underline">
        {parent}
      </Link>{" "}
      / {children}
    </>
  );
}

/** A page's title row: the title and a line of context on the left, its actions on the right (wrapping on phones). */
export function PageHeader({
  title,
  description,
  actions,
  crumbs,
  className,
}: {
  title: ReactNode;
  description?: ReactNode;
  actions?: ReactNode;
  crumbs?: ReactNode;
  className?: string;
}) {
  return (
    <div className={cn("mb-5 flex flex-col gap-1", className)}>
      {crumbs && (
        <nav aria-label="Breadcrumb" className="text-xs text-muted-foreground">
          {crumbs}
        </nav>
      )}
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="min-w-0">
          <h1 className="text-xl font-semibold tracking-tight break-words">{title}</h1>
          {description && <p className="mt-1 text-sm text-muted-foreground">{description}</p>}
        </div>
        {actions && <div className="flex flex-wrap items-center gap-2">{actions}</div>}
      </div>
    </div>
  );
}
