"use client";

import { CheckIcon, CopyIcon } from "lucide-react";
import { useEffect, useState, type ReactNode } from "react";
import { Button, type ButtonProps } from "./ui/button";
import { cn } from "./ui/cn";

/**
 * Copies `text` to the clipboard; says "Copied" for a moment, or why it could not. `text` may be a function,
 * for a text that is costly to build (a cURL command with the whole body) and only needed on a click.
 */
export function CopyButton({
  text,
  label = "Copy",
  className,
  variant = "outline",
  size = "sm",
  icon,
}: {
  text: string | (() => string);
  label?: string;
  className?: string;
  variant?: ButtonProps["variant"];
  size?: ButtonProps["size"];
  icon?: ReactNode;
}) {
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  useEffect(() => {
    if (state === "idle") return;
    const timer = setTimeout(() => setState("idle"), 1600);
    return () => clearTimeout(timer);
  }, [state]);
  const copy = () => {
    // navigator.clipboard exists only in a secure context (https, or localhost).
    if (!navigator.clipboard) return setState("failed");
    navigator.clipboard.writeText(typeof text === "function" ? text() : text).then(
      () => setState("copied"),
      () => setState("failed"),
    );
  };
  return (
    <Button
      variant={variant}
      size={size}
      // Outline and ghost buttons name no text colour; the legacy sheet's `button { color: #fff }` would show.
      className={cn(variant !== "default" && variant !== "destructive" && "text-foreground", className)}
      onClick={copy}
      aria-live="polite"
    >
      {state === "copied" ? <CheckIcon aria-hidden /> : (icon ?? <CopyIcon aria-hidden />)}
      {state === "copied" ? "Copied" : state === "failed" ? "Copy failed: select and copy" : label}
    </Button>
  );
}
