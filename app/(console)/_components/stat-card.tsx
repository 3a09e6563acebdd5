import Link from "@/components/link";
import type { ReactNode } from "react";
import { cn } from "@/components/ui/cn";

/** One number on the overview: a label, the value (≈ when estimated), a line of context; a link when it leads somewhere. */
export function StatCard({
  id,
  label,
  value,
  hint,
  href,
  estimated,
  tone,
}: {
  id: string;
  label: string;
  value: ReactNode;
  hint?: ReactNode;
  href?: string;
  estimated?: boolean;
  tone?: "warning" | "danger";
}) {
  const body = (
    <>
      <div className="text-xs font-medium text-muted-foreground">{label}</div>
      <div
        className={cn(
          "mt-1 text-2xl font-semibold tabular-nums tracking-tight",
          tone === "warning" && "text-warning",
          tone === "danger" && "text-destructive",
        )}
      >
        {estimated && (
          <span title="An estimate: counting every row exactly would scan the whole table" className="mr-0.5">
            ≈
          </span>
        )}
        {value}
      </div>
      {hint && <div className="mt-0.5 truncate text-xs text-muted-foreground">{hint}</div>}
    </>
  );
  const frame = "block min-w-0 rounded-lg border bg-card px-4 py-3 text-card-foreground shadow-xs";
  return href ? (
    <Link href={href} data-stat={id} className={cn(frame, "transition-colors hover:border-ring/50 hover:bg-accent/40")}>
      {body}
    </Link>
  ) : (
    <div data-stat={id} className={frame}>
      {body}
    </div>
  );
}
