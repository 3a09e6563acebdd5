"use client";

import { XIcon } from "lucide-react";
import { createContext, useContext, useState, type ReactNode } from "react";
import { Button } from "@/components/ui/button";

export interface Announcement {
  ok: boolean;
  text: string;
}

const Announce = createContext<(a: Announcement | undefined) => void>(() => {});

/**
 * The page's one outcome line for its actions. A requeued group's card or a resolved row disappears with
 * the refresh that follows, so what happened is said here, above them, rather than inside them.
 */
export function Announcer({ children }: { children: ReactNode }) {
  const [said, setSaid] = useState<Announcement | undefined>();
  return (
    <Announce value={setSaid}>
      <div aria-live="polite" className="empty:hidden">
        {said && (
          <div
            role={said.ok ? "status" : "alert"}
            className={
              said.ok
                ? "flex items-start justify-between gap-2 rounded-lg border border-success/30 bg-success/10 px-3 py-2 text-sm"
                : "flex items-start justify-between gap-2 rounded-lg border border-destructive/40 bg-destructive/5 px-3 py-2 text-sm text-destructive"
            }
          >
            <span className="min-w-0 break-words">{said.text}</span>
            <Button
              variant="ghost"
              size="icon-sm"
              className="border-transparent bg-transparent text-current"
              aria-label="Dismiss"
              onClick={() => setSaid(undefined)}
            >
              <XIcon aria-hidden />
            </Button>
          </div>
        )}
      </div>
      {children}
    </Announce>
  );
}

export const useAnnounce = () => useContext(Announce);
