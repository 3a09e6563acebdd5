import { ExternalLinkIcon } from "lucide-react";
import type { DashboardLink } from "@/lib/providers/dashboard-links";
import { cn } from "./ui/cn";

/** Links out to the provider's own pages, each in a new tab that cannot reach back to this one (noopener). */
export function DashboardLinks({ links, className }: { links: DashboardLink[]; className?: string }) {
  return (
    <span className={cn("flex flex-wrap gap-x-3 gap-y-1", className)} data-dashboard-links="">
      {links.map((l) => (
        <a
          key={l.href}
          href={l.href}
          target="_blank"
          rel="noopener noreferrer"
          className="inline-flex items-center gap-1 text-primary underline-offset-2 [overflow-wrap:anywhere] hover:underline"
        >
          {l.label}
          <ExternalLinkIcon aria-hidden className="size-3.5 shrink-0" />
        </a>
      ))}
    </span>
  );
}
