import type { ComponentProps } from "react";
import { cn } from "./cn";

export const fieldClass = cn(
  "h-9 w-full min-w-0 rounded-md border border-input bg-card px-2.5 text-sm shadow-xs",
  "placeholder:text-muted-foreground/70 disabled:opacity-50 aria-invalid:border-destructive",
);

export function Input({ className, ...props }: ComponentProps<"input">) {
  return <input data-slot="input" className={cn(fieldClass, className)} {...props} />;
}

export function Textarea({ className, ...props }: ComponentProps<"textarea">) {
  return <textarea data-slot="textarea" className={cn(fieldClass, "h-auto min-h-20 py-2", className)} {...props} />;
}

/** A native select: keyboard, mobile pickers and forms work without script. */
export function NativeSelect({ className, ...props }: ComponentProps<"select">) {
  return <select data-slot="select" className={cn(fieldClass, "pr-7", className)} {...props} />;
}

export function Label({ className, ...props }: ComponentProps<"label">) {
  return (
    <label className={cn("flex flex-col gap-1 text-xs font-medium text-muted-foreground", className)} {...props} />
  );
}
