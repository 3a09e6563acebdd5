import type { ComponentProps } from "react";
import { cn } from "./ui/cn";
import { Input } from "./ui/input";

/**
 * A time in UTC typed as 24 h text, "2026-11-01 09:30": a browser's date picker follows the machine's
 * locale and zone, the console's times are UTC.
 */
export function UtcInput({ className, ...props }: ComponentProps<"input">) {
  return (
    <Input
      type="text"
      inputMode="text"
      placeholder="YYYY-MM-DD HH:MM"
      autoComplete="off"
      spellCheck={false}
      className={cn("font-mono", className)}
      {...props}
    />
  );
}
