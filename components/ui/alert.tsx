import { cva, type VariantProps } from "class-variance-authority";
import type { ComponentProps } from "react";
import { cn } from "./cn";

export const alertVariants = cva(
  "rounded-md border px-3 py-2 text-sm break-words [&_code]:font-mono [&_code]:text-xs",
  {
    variants: {
      tone: {
        info: "border-primary/25 bg-primary/5 text-foreground",
        success: "border-success/30 bg-success/8 text-foreground",
        warning: "border-warning/35 bg-warning/10 text-foreground",
        danger: "border-destructive/30 bg-destructive/8 text-destructive",
        neutral: "border-border bg-muted/50 text-foreground",
      },
    },
    defaultVariants: { tone: "neutral" },
  },
);

/** A message box (an outcome, a warning, a setup hint); pass `role="alert"` or `role="status"` as it needs. */
export function Alert({ className, tone, ...props }: ComponentProps<"div"> & VariantProps<typeof alertVariants>) {
  return <div data-slot="alert" className={cn(alertVariants({ tone }), className)} {...props} />;
}
