"use client";

import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";

/**
 * j / k move through the rows, Enter opens the current one: the way people read a log. Ignored while
 * typing in a field or with a modifier held, so browser shortcuts keep working.
 */
export function useRowKeys(ids: string[], hrefOf: (id: string) => string) {
  const router = useRouter();
  const [active, setActive] = useState<string | undefined>();
  const at = active === undefined ? -1 : ids.indexOf(active);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const t = e.target as HTMLElement | null;
      if (e.metaKey || e.ctrlKey || e.altKey || t?.closest("input, textarea, select, button, a, [contenteditable]"))
        return;
      if (e.key === "j" || e.key === "k") {
        e.preventDefault();
        const next = e.key === "j" ? Math.min(at + 1, ids.length - 1) : Math.max(at - 1, 0);
        const id = ids[next];
        if (id === undefined) return;
        setActive(id);
        document.querySelector(`[data-row-key="${CSS.escape(id)}"]`)?.scrollIntoView({ block: "nearest" });
      } else if (e.key === "Enter" && active !== undefined && at >= 0) {
        e.preventDefault();
        router.push(hrefOf(active));
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [at, active, ids, hrefOf, router]);
  return at >= 0 ? active : undefined;
}
