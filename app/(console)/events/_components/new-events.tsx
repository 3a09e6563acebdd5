"use client";

import { RefreshCwIcon } from "lucide-react";
import { useRouter } from "next/navigation";
import { useEffect, useState, useTransition } from "react";
import { Button } from "@/components/ui/button";
import { countNewerEventsAction } from "../actions";
import { plural } from "@/lib/format/words";

type Filter = Record<string, string | string[] | undefined>;
const EVERY_MS = 10_000;

/**
 * On the first page, asks every few seconds whether events newer than the top row arrived, and offers
 * them instead of moving rows under the reader's cursor. Paused while the tab is hidden.
 */
export function NewEvents({ filter, head }: { filter: Filter; head: string | undefined }) {
  const router = useRouter();
  const [count, setCount] = useState(0);
  const [pending, startTransition] = useTransition();
  useEffect(() => {
    if (!head) return;
    let stopped = false;
    const poll = async () => {
      if (document.hidden) return;
      const r = await countNewerEventsAction({ filter, head });
      if (!stopped && r.ok) setCount(r.data.count);
    };
    const timer = setInterval(() => void poll(), EVERY_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [filter, head]);
  if (count === 0) return null;
  return (
    <div role="status" className="mb-2 flex justify-center">
      <Button
        size="sm"
        variant="secondary"
        disabled={pending}
        onClick={() =>
          startTransition(() => {
            setCount(0);
            router.refresh();
          })
        }
      >
        <RefreshCwIcon /> {count >= 100 ? "100+ new events" : plural(count, "new event")}: show
      </Button>
    </div>
  );
}
