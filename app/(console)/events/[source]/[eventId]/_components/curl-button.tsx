"use client";

import { TerminalIcon } from "lucide-react";
import { CopyButton } from "@/components/copy-button";
import { curlCommand } from "@/lib/console/curl";
import { useEventBody } from "./event-body";

/** Copies a shell command that sends this delivery again, headers and exact body, to the app at `origin`. */
export function CurlButton({ eventId, origin }: { eventId: string; origin: string }) {
  const { source, rawBody, headers } = useEventBody();
  const comment = [
    `${source} event ${eventId}, as delivered: the stored headers (signature included) and the exact body.`,
    "A signed timestamp is as old as the delivery: raise WEBHOOK_TOLERANCE_SECONDS or it is refused.",
  ].join("\n");
  return (
    <CopyButton
      label="Copy as cURL"
      icon={<TerminalIcon aria-hidden />}
      text={() => curlCommand({ source, headers, rawBody, baseUrl: origin, comment })}
    />
  );
}
