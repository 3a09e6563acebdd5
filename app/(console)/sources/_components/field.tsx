import type { ReactNode } from "react";
import { Label } from "@/components/ui/input";

/** A labelled control with its hint under it (outside the label, so the control's name stays short). */
export function Field({
  id,
  label,
  hint,
  children,
  className,
}: {
  id: string;
  label: string;
  hint?: ReactNode;
  children: ReactNode;
  className?: string;
}) {
  return (
    <div className={className ?? "flex min-w-0 flex-col gap-1"}>
      <Label htmlFor={id}>{label}</Label>
      {children}
      {hint && (
        <p id={`${id}-hint`} className="text-xs text-muted-foreground">
          {hint}
        </p>
      )}
    </div>
  );
}
