import type { RequestHeaders } from "@/lib/providers/types";
import type { BodySource } from "./body";

/** Whether the answer closes the connection: a body that has not all arrived is never drained for keep-alive. */
export function mustClose(headers: RequestHeaders, body: BodySource): boolean {
  const hasBody = headers.has("transfer-encoding") || Number(headers.get("content-length") ?? 0) > 0;
  return hasBody && !body.complete;
}

/** The head of every answer to a delivery, whichever host writes it; `extra` is the answer's own (Retry-After). */
export function answerHeaders(extra: Record<string, string> | undefined, close: boolean): Record<string, string> {
  return {
    ...extra,
    "content-type": "application/json",
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
    ...(close ? { connection: "close" } : {}),
  };
}
