import { getDb } from "@/db";
import { getEnv } from "@/lib/env";
import { createAuth, resolveAuthSecret, type Auth } from "./server";

const globalForAuth = globalThis as unknown as { __ledgerAuth?: Promise<Auth> };

export function appBaseURL(): string {
  const env = getEnv();
  return env.APP_URL ?? `http://127.0.0.1:${env.PORT}`;
}

/** The process-wide better-auth instance, on the app database. */
export function getAuth(): Promise<Auth> {
  globalForAuth.__ledgerAuth ??= (async () => {
    const env = getEnv();
    const db = await getDb();
    const secret = await resolveAuthSecret(db, env.BETTER_AUTH_SECRET);
    return createAuth(db, {
      baseURL: appBaseURL(),
      secret,
      signInPerMinute: env.SIGN_IN_PER_MINUTE,
      sessionHours: env.SESSION_HOURS,
    });
  })().catch((err: unknown) => {
    globalForAuth.__ledgerAuth = undefined;
    throw err;
  });
  return globalForAuth.__ledgerAuth;
}
