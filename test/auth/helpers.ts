import { hashPassword } from "better-auth/crypto";
import type { Db } from "@/db/client";
import type { Actor } from "@/lib/roles";
import { createAuth, type Auth } from "@/lib/auth/server";
import { insertUser } from "@/lib/auth/users";

export const BASE_URL = "http://127.0.0.1:3999";

export function testAuth(db: Db, over: { signInPerMinute?: number; sessionHours?: number } = {}): Auth {
  return createAuth(db, {
    baseURL: BASE_URL,
    secret: "test-secret-test-secret-test-secret-0123",
    signInPerMinute: over.signInPerMinute ?? 100,
    sessionHours: over.sessionHours ?? 12,
  });
}

// One scrypt per password per file: a hash costs about 0.2 s of CPU (several times that beside the other tiers), and
// the role tests make three users per test. What is under test (createUser, changePassword, a sign-in) still hashes
// and verifies for real; a user made here signs in with its password as any other.
const hashes = new Map<string, Promise<string>>();
const hashOnce = (password: string) => {
  let hash = hashes.get(password);
  if (!hash) hashes.set(password, (hash = hashPassword(password)));
  return hash;
};

export async function makeUser(
  db: Db,
  role: Actor["role"],
  email = `${role}@example.com`,
  password = "correct horse battery",
): Promise<Actor> {
  const id = await insertUser(db, { email, role, password, name: role }, hashOnce);
  return { id, email, role };
}

/** Signs in through better-auth's HTTP handler, as the browser does; returns the session cookie header. */
export async function signIn(
  auth: Auth,
  email: string,
  password: string,
  ip = "203.0.113.7",
): Promise<{ status: number; cookie: string | undefined; body: unknown }> {
  const res = await auth.handler(
    new Request(`${BASE_URL}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: BASE_URL, "x-forwarded-for": ip },
      body: JSON.stringify({ email, password }),
    }),
  );
  const setCookie = res.headers.getSetCookie().find((c) => c.startsWith("ledger.session_token="));
  return { status: res.status, cookie: setCookie?.split(";")[0], body: await res.json().catch(() => null) };
}
