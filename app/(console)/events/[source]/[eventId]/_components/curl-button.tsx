"use client";

import { TerminalIcon } from "lucide-react";
import { CopyButton } from "@/components/copy-button";
import { curlCommand } from "@/lib/ledger/curl";
import { useEventBody } from "./event-body";

const BASE_URL = "http://localhost:3000";

/** Copies a shell command that sends this delivery again, headers and exact body, to a local receiver. */
export function CurlButton({ eventId }: { eventId: string }) {
  const { source, rawBody, headers } = useEventBody();
  const comment = [
    `${source} event ${eventId}, as delivered: the stored headers (signature included) and the exact body.`,
    "A signed timestamp is as old as the delivery: raise WEBHOOK_TOLERANCE_SECONDS locally or it is refused.",
  ].join("\n");
  return (
    <CopyButton
      label="Copy as cURL"
      icon={<TerminalIcon aria-hidden />}
      text={() => curlCommand({ source, headers, rawBody, baseUrl: BASE_URL, comment })}
    />
  );
}
