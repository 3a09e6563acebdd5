import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { rowsOf } from "@/db/client";
import { claimSignInAttempt } from "@/lib/auth/throttle";
import { setupTestDb } from "../db";
import { makeUser, signIn, testAuth } from "./helpers";

const { db } = setupTestDb();
const FREE = 5;
const RIGHT = "correct horse battery";

/** Each attempt from its own forged client address, so only the per-account limit stands in the way. */
const burst = (n: number, password: (i: number) => string, email = "ops@example.com") => {
  const auth = testAuth(db, { signInPerMinute: 1000 });
  return Promise.all(
    Array.from({ length: n }, (_, i) => signIn(auth, email, password(i), `10.${(i >> 8) & 255}.${i & 255}.${n & 255}`)),
  );
};
const statusCounts = (results: { status: number }[]) =>
  results.reduce<Record<number, number>>((acc, r) => ({ ...acc, [r.status]: (acc[r.status] ?? 0) + 1 }), {});
const sessions = async () => rowsOf(await db.execute(sql`select 1 from auth_session`)).length;

describe("per-account slow-down under concurrency", () => {
  it("[auth] 100 concurrent wrong-password attempts from 100 addresses: only 5 are judged (401), the rest are refused (429)", async () => {
    await makeUser(db, "ops");
    const results = await burst(100, (i) => `wrong password ${i}`);
    expect(statusCounts(results)).toEqual({ 401: FREE, 429: 100 - FREE });
    expect(
      rowsOf(await db.execute(sql`select count from auth_rate_limit where key = 'signin-fail:ops@example.com'`)),
    ).toEqual([{ count: FREE }]);
  });

  it("[auth] once a burst has used the five judged attempts, the right password gets no session, alone or in a burst", async () => {
    await makeUser(db, "ops");
    const wrong = await burst(59, (i) => `wrong password ${i}`);
    expect(statusCounts(wrong)).toEqual({ 401: FREE, 429: 59 - FREE });
    const last = await burst(1, () => RIGHT);
    expect(statusCounts(last)).toEqual({ 429: 1 });
    const right = await burst(30, () => RIGHT);
    expect(statusCounts(right)).toEqual({ 429: 30 });
    expect([...wrong, ...last, ...right].every((r) => r.cookie === undefined)).toBe(true);
    expect(await sessions()).toBe(0);
  });

  it("[auth] a burst of 60 with the right password among them is judged five times: it signs in only if it was one of the five", async () => {
    // Sent last, but concurrent: the server may take it among the first five, as it would a person's third try.
    await makeUser(db, "ops");
    const mixed = await burst(60, (i) => (i === 59 ? RIGHT : `wrong password ${i}`));
    const judged = mixed.filter((r) => r.status !== 429);
    expect(judged).toHaveLength(FREE);
    const signedIn = mixed.flatMap((r, i) => (r.status === 200 ? [i] : []));
    expect(signedIn.every((i) => i === 59)).toBe(true);
    expect(statusCounts(mixed)).toEqual(
      signedIn.length ? { 200: 1, 401: FREE - 1, 429: 60 - FREE } : { 401: FREE, 429: 60 - FREE },
    );
    expect(await sessions()).toBe(signedIn.length);
  });

  it("[auth] unknown emails hold under a concurrent burst too", async () => {
    const results = await burst(50, (i) => `guess ${i}`, "ghost@example.com");
    expect(statusCounts(results)).toEqual({ 401: FREE, 429: 50 - FREE });
  });
});

describe("per-account slow-down timing", () => {
  it("[auth] past 5 judged attempts each further one waits 30 s, then 60 s, …; refused tries do not count; an hour of quiet starts over", async () => {
    const t0 = 1_700_000_000_000;
    const verdicts: boolean[] = [];
    for (let i = 0; i < FREE + 1; i++)
      verdicts.push((await claimSignInAttempt(db, "Ops@Example.com ", t0 + i)).allowed);
    expect(verdicts).toEqual([true, true, true, true, true, false]);
    expect(await claimSignInAttempt(db, "ops@example.com", t0 + 29_000)).toEqual({ allowed: false, waitMs: 1004 });
    expect((await claimSignInAttempt(db, "ops@example.com", t0 + 4 + 30_000)).allowed).toBe(true);
    expect((await claimSignInAttempt(db, "ops@example.com", t0 + 4 + 30_000 + 59_000)).allowed).toBe(false);
    expect((await claimSignInAttempt(db, "ops@example.com", t0 + 4 + 30_000 + 60_000)).allowed).toBe(true);
    expect((await claimSignInAttempt(db, "ops@example.com", t0 + 4 + 90_000 + 61 * 60_000)).allowed).toBe(true);
    expect(
      rowsOf(await db.execute(sql`select count from auth_rate_limit where key = 'signin-fail:ops@example.com'`)),
    ).toEqual([{ count: 1 }]);
  });
});
