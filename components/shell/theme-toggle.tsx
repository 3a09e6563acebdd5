"use client";

import { MonitorIcon, MoonIcon, SunIcon } from "lucide-react";
import { useTheme } from "next-themes";
import { useEffect, useState } from "react";
import { cn } from "@/components/ui/cn";

const THEMES = [
  { value: "light", label: "Light theme", Icon: SunIcon },
  { value: "dark", label: "Dark theme", Icon: MoonIcon },
  { value: "system", label: "System theme", Icon: MonitorIcon },
] as const;

/** Three small buttons; the chosen one is pressed. Renders after mount: the theme is only known in the browser. */
export function ThemeToggle({ className }: { className?: string }) {
  const { theme, setTheme } = useTheme();
  const [mounted, setMounted] = useState(false);
  // eslint-disable-next-line react-hooks/set-state-in-effect -- the one-time mount flag next-themes documents
  useEffect(() => setMounted(true), []);
  return (
    <div
      role="group"
      aria-label="Theme"
      className={cn("flex gap-0.5 rounded-md bg-sidebar-accent/60 p-0.5", className)}
    >
      {THEMES.map(({ value, label, Icon }) => (
        <button
          key={value}
          type="button"
          title={label}
          aria-label={label}
          aria-pressed={mounted ? theme === value : undefined}
          onClick={() => setTheme(value)}
          className="cursor-pointer rounded p-1 text-sidebar-foreground/70 hover:text-white aria-pressed:bg-sidebar aria-pressed:text-white"
        >
          <Icon className="size-3.5" />
        </button>
      ))}
    </div>
  );
}
