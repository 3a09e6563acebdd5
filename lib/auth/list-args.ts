import type { Db } from "@/db/client";
import type { Actor } from "@/lib/roles";

/** What a console list of the newest rows takes: the database, who asks (the read checks their role), how many. */
export interface ListArgs {
  db: Db;
  actor: Actor | undefined;
  limit?: number;
}

/** How many rows a list returns: 50 unless asked, never fewer than 1 or more than 200. */
export function listLimit(limit = 50): number {
  return Math.min(200, Math.max(1, limit));
}
