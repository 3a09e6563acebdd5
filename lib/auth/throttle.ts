import { eq, sql } from "drizzle-orm";
import { randomUUID } from "node:crypto";
import type { Db } from "@/db/client";
import { authRateLimit } from "@/db/schema";

/**
 * Per-account slow-down for sign-ins, on top of better-auth's per-IP limit: client IP headers can be
 * forged, an email cannot be brute-forced from many addresses. The first FREE_ATTEMPTS are judged at any pace;
 * after that each further attempt must wait, doubling from BASE_MS up to MAX_MS after the last judged one.
 * Unknown emails are counted the same way, so the throttle does not reveal which accounts exist.
 * A success clears the count; a count not touched for FORGET_MS starts over.
 *
 * The attempt is counted BEFORE it is judged, in the same statement that decides whether it may be:
 * checking first and recording the failure after the password check would let a concurrent burst all
 * pass the check before any failure was written.
 */
export const FREE_ATTEMPTS = 5;
const BASE_MS = 30_000;
const MAX_MS = 15 * 60_000;
const FORGET_MS = 60 * 60_000;
// 2^20 × 30 s is far past MAX_MS; the cap keeps power() finite however high a count gets.
const MAX_DOUBLINGS = 20;

const keyFor = (email: string) => `signin-fail:${email.trim().toLowerCase()}`;

const waitAfter = (count: number) =>
  Math.min(MAX_MS, BASE_MS * 2 ** Math.min(MAX_DOUBLINGS, Math.max(0, count - FREE_ATTEMPTS)));

export type SignInVerdict = { allowed: true } | { allowed: false; waitMs: number };

/**
 * Counts this attempt if it may be judged now, atomically: the upsert's WHERE sees the row under its
 * lock, so of any number of concurrent attempts exactly as many as allowed get a row back.
 */
export async function claimSignInAttempt(db: Db, email: string, now = Date.now()): Promise<SignInVerdict> {
  const key = keyFor(email);
  const stale = sql`${now}::bigint - ${authRateLimit.lastRequest} > ${FORGET_MS}::bigint`;
  // waitAfter(count) in SQL: BASE_MS doubled once per attempt past the free ones, capped at MAX_MS.
  const doublings = sql`least(${MAX_DOUBLINGS}, greatest(0, ${authRateLimit.count} - ${FREE_ATTEMPTS}))`;
  const wait = sql`least(${MAX_MS}::float8, ${BASE_MS}::float8 * power(2::float8, ${doublings}))`;
  const waited = sql`${now}::bigint >= ${authRateLimit.lastRequest} + ${wait}`;
  const claimed = await db
    .insert(authRateLimit)
    .values({ id: randomUUID(), key, count: 1, lastRequest: now })
    .onConflictDoUpdate({
      target: authRateLimit.key,
      set: { count: sql`case when ${stale} then 1 else ${authRateLimit.count} + 1 end`, lastRequest: now },
      setWhere: sql`${stale} or ${authRateLimit.count} < ${FREE_ATTEMPTS} or ${waited}`,
    })
    .returning({ count: authRateLimit.count });
  if (claimed.length > 0) return { allowed: true };
  // Refused: read the row only to tell the person how long to wait.
  const [row] = await db.select().from(authRateLimit).where(eq(authRateLimit.key, key));
  return { allowed: false, waitMs: row ? Math.max(1000, row.lastRequest + waitAfter(row.count) - now) : 1000 };
}

export async function clearSignInFailures(db: Db, email: string): Promise<void> {
  await db.delete(authRateLimit).where(eq(authRateLimit.key, keyFor(email)));
}
