import { eq } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "@/db/client";
import { authUser } from "@/db/schema";
import { writeAnonymousRefusal, writeAudit } from "@/lib/audit/write";

/**
 * Sign-ins and sign-outs in the audit log. Anyone can cause a failed sign-in, so its row is small and
 * bounded: the email tried (only when it is an address), the client address, a fixed reason; never the
 * password. Judged failures are already rate-limited per account and per client (throttle.ts, better-auth's
 * limiter); attempts refused by either limit share one aggregated row per minute and limit.
 */
const MAX_EMAIL = 320;
const MAX_IP = 64;
const MAX_USER_AGENT = 200;

const clip = (value: unknown, max: number): string | undefined =>
  typeof value === "string" && value.length > 0 ? value.slice(0, max) : undefined;

// The check a user's email passes when it is created (lib/auth/users.ts), within RFC 5321's lengths.
const Address = z.email().max(254);
const MALFORMED_TARGET = "user:(malformed email)";

const userTarget = (email: string) => `user:${email.trim().toLowerCase().slice(0, MAX_EMAIL)}`;

/**
 * The audit target of an attempted email. Anything that is not an address a user could have (a password
 * typed into the wrong field, most often) is recorded only as malformed, never as typed.
 */
function attemptTarget(email: string): string {
  const address = email.trim().toLowerCase();
  const local = address.slice(0, address.lastIndexOf("@"));
  return Address.safeParse(address).success && local.length <= 64 ? `user:${address}` : MALFORMED_TARGET;
}

/** Only the keys that have a value: the detail column shows nothing for an unknown address. */
function detailOf(fields: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(fields).filter((e): e is [string, string] => e[1] !== undefined));
}

async function emailOf(db: Db, userId: string): Promise<string> {
  const [user] = await db.select({ email: authUser.email }).from(authUser).where(eq(authUser.id, userId));
  return user?.email ?? `unknown user ${userId.slice(0, 64)}`;
}

interface SessionFacts {
  userId: string;
  ipAddress?: string | null;
  userAgent?: string | null;
  impersonatedBy?: unknown;
}

/** A session was opened: whichever endpoint or server call opened it. */
export async function recordSignIn(db: Db, session: SessionFacts): Promise<void> {
  const email = await emailOf(db, session.userId);
  await writeAudit(
    db,
    { id: session.userId, email },
    {
      action: "auth.sign-in",
      target: userTarget(email),
      detail: detailOf({
        ip: clip(session.ipAddress, MAX_IP),
        userAgent: clip(session.userAgent, MAX_USER_AGENT),
        impersonatedBy: clip(session.impersonatedBy, 64),
      }),
      result: "ok",
    },
  );
}

/** The person signed out (their own session ended through the sign-out endpoint). */
export async function recordSignOut(db: Db, session: SessionFacts, ip: string | null | undefined): Promise<void> {
  const email = await emailOf(db, session.userId);
  await writeAudit(
    db,
    { id: session.userId, email },
    { action: "auth.sign-out", target: userTarget(email), detail: detailOf({ ip: clip(ip, MAX_IP) }), result: "ok" },
  );
}

/** Why a judged sign-in failed, in fixed words: the provider's message is not stored. */
function reasonOf(status: number): string {
  if (status === 401) return "wrong email or password";
  if (status === 403) return "the account is disabled";
  if (status === 400) return "the request was malformed";
  return `refused with HTTP ${status}`;
}

/** A sign-in that reached the password check and was refused. */
export async function recordSignInFailure(
  db: Db,
  attempt: { email: string; ip: string | null | undefined; status: number },
): Promise<void> {
  await writeAudit(
    db,
    { id: null, email: "anonymous" },
    {
      action: "auth.sign-in-failed",
      target: attemptTarget(attempt.email),
      detail: detailOf({ ip: clip(attempt.ip, MAX_IP) }),
      result: "refused",
      error: reasonOf(attempt.status),
    },
  );
}

/** Refused by the per-account throttle before being judged: one row per minute, counted (lib/audit/write.ts). */
export async function recordSignInThrottled(
  db: Db,
  attempt: { email: string; ip: string | null | undefined },
): Promise<void> {
  await writeAnonymousRefusal(db, {
    action: "auth.sign-in-throttled",
    target: attemptTarget(attempt.email),
    detail: detailOf({ ip: clip(attempt.ip, MAX_IP) }),
    error: "too many failed sign-ins for this account",
  });
}

/**
 * Refused by the per-client limit (SIGN_IN_PER_MINUTE) before the body was read: one row per minute,
 * counted. The target is the client; the body (the email tried) is not read for a refused request.
 */
export async function recordSignInRateLimited(db: Db, ip: string | null | undefined): Promise<void> {
  const client = clip(ip, MAX_IP);
  await writeAnonymousRefusal(db, {
    action: "auth.sign-in-rate-limited",
    target: `client:${client ?? "(unknown address)"}`,
    detail: detailOf({ ip: client }),
    error: "too many sign-ins from this client address",
  });
}
