import { sql } from "drizzle-orm";
import { getDb as getDefaultDb } from "@/db";
import type { Db } from "@/db/client";
import { describeError, withinDeadline } from "@/lib/errors";

export interface Health {
  ok: boolean;
  database: "up" | "down";
}

/** 200-worthy only when the database answers `select 1` within the timeout. */
export async function checkHealth(getDb: () => Promise<Db> = getDefaultDb, timeoutMs = 2000): Promise<Health> {
  try {
    await withinDeadline(
      getDb().then((db) => db.execute(sql`select 1`)),
      timeoutMs,
      "no answer",
    );
    return { ok: true, database: "up" };
  } catch (err) {
    console.error("[health] database down:", describeError(err));
    return { ok: false, database: "down" };
  }
}
