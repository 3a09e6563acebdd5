import { eq, sql } from "drizzle-orm";
import { randomUUID } from "node:crypto";
import type { Db } from "@/db/client";
import { authRateLimit } from "@/db/schema";

/**
 * Per-account slow-down for failed sign-ins, on top of better-auth's per-IP limit: client IP headers
 * can be forged, an email cannot be brute-forced from many addresses. After FREE failures every further
 * attempt waits, doubling from BASE_MS up to MAX_MS. Unknown emails are counted the same way, so the
 * throttle does not reveal which accounts exist. A success clears the count.
 */
const FREE = 5;
const BASE_MS = 30_000;
const MAX_MS = 15 * 60_000;
const FORGET_MS = 60 * 60_000;

const keyFor = (email: string) => `signin-fail:${email.trim().toLowerCase()}`;

export async function signInWait(db: Db, email: string, now = Date.now()): Promise<number> {
  const [row] = await db.select().from(authRateLimit).where(eq(authRateLimit.key, keyFor(email)));
  if (!row || row.count < FREE || now - row.lastRequest > FORGET_MS) return 0;
  const wait = Math.min(MAX_MS, BASE_MS * 2 ** (row.count - FREE));
  return Math.max(0, row.lastRequest + wait - now);
}

export async function recordSignInFailure(db: Db, email: string, now = Date.now()): Promise<void> {
  await db
    .insert(authRateLimit)
    .values({ id: randomUUID(), key: keyFor(email), count: 1, lastRequest: now })
    .onConflictDoUpdate({
      target: authRateLimit.key,
      // A stale count (no failure for an hour) starts over.
      set: { count: sql`case when ${now} - ${authRateLimit.lastRequest} > ${FORGET_MS} then 1 else ${authRateLimit.count} + 1 end`, lastRequest: now },
    });
}

export async function clearSignInFailures(db: Db, email: string): Promise<void> {
  await db.delete(authRateLimit).where(eq(authRateLimit.key, keyFor(email)));
}
