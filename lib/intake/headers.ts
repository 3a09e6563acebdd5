import type { RequestHeaders } from "@/lib/providers/types";

// Credentials never reach the ledger; signature headers do, so a payload can be re-verified later.
const DROPPED = new Set(["cookie", "authorization", "proxy-authorization", "x-replay-token"]);

export function storableHeaders(headers: RequestHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, key) => {
    if (!DROPPED.has(key)) out[key] = value;
  });
  return out;
}
