import { and, eq, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { replayRun, type ReplayRun } from "@/db/schema/replay";
import { NotFoundError } from "@/lib/errors";

/** A run its own host stopped on purpose (Ctrl-C): cancelled, so no resumer picks it up; --resume still can. */
export async function markStopped(db: Db, id: number, reason: string): Promise<ReplayRun> {
  const [row] = await db
    .update(replayRun)
    .set({ status: "cancelled", lastError: reason, finishedAt: sql`now()`, leaseOwner: null, leaseExpiresAt: null })
    .where(and(eq(replayRun.id, id), eq(replayRun.status, "running")))
    .returning();
  if (row) return row;
  const [current] = await db.select().from(replayRun).where(eq(replayRun.id, id));
  if (!current) throw new NotFoundError(`no replay run ${id}`);
  return current;
}
