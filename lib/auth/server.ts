import { randomBytes } from "node:crypto";
import { betterAuth, type BetterAuthOptions } from "better-auth";
import { drizzleAdapter } from "better-auth/adapters/drizzle";
import { APIError, createAuthMiddleware, getIP, isAPIError } from "better-auth/api";
import { admin } from "better-auth/plugins";
import { eq } from "drizzle-orm";
import type { Db } from "@/db/client";
import {
  appSetting,
  authAccount,
  authRateLimit,
  authSession,
  authUser,
  authVerification,
  type Role,
} from "@/db/schema";
import type { Actor } from "@/lib/roles";
import { exposeOnlyConsoleEndpoints } from "./exposed";
import {
  recordSignIn,
  recordSignInFailure,
  recordSignInRateLimited,
  recordSignInThrottled,
  recordSignOut,
} from "@/lib/audit/sign-in";
import { claimSignInAttempt, clearSignInFailures } from "./throttle";

const emailOf = (body: unknown): string | undefined => {
  const email = (body as { email?: unknown } | undefined)?.email;
  return typeof email === "string" && email.length > 0 ? email : undefined;
};

/** The client address as better-auth's own rate limiter resolves it (its trusted headers), when known. */
function clientIp(ctx: { request?: Request; headers?: Headers; context: { options: BetterAuthOptions } }) {
  const source = ctx.request ?? ctx.headers;
  return source ? getIP(source, ctx.context.options) : null;
}

export interface AuthConfig {
  baseURL: string;
  secret: string;
  /** Sign-in attempts allowed per client and minute before 429. */
  signInPerMinute: number;
  sessionHours: number;
}

export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 256;
export const MAX_NAME_LENGTH = 100;
const MAX_IMAGE_LENGTH = 2048;

/**
 * The same limits as the app's own user verbs, for any write better-auth makes to a user row, whichever
 * endpoint or server call it comes from (update-user is not exposed, but auth.api.updateUser exists).
 */
async function checkUserFields(user: { name?: unknown; image?: unknown }): Promise<void> {
  if (typeof user.name === "string" && user.name.length > MAX_NAME_LENGTH)
    throw new APIError("BAD_REQUEST", { message: `The name may be at most ${MAX_NAME_LENGTH} characters` });
  if (typeof user.image === "string" && user.image.length > MAX_IMAGE_LENGTH)
    throw new APIError("BAD_REQUEST", { message: `The image URL may be at most ${MAX_IMAGE_LENGTH} characters` });
}

/**
 * better-auth's per-client limiter answers 429 before any hook runs, with its own X-Retry-After header
 * (the per-account throttle's 429 comes from the before hook, which records itself).
 */
function refusedByClientLimit(request: Request, response: Response): boolean {
  return (
    response.status === 429 &&
    response.headers.has("x-retry-after") &&
    request.method === "POST" &&
    new URL(request.url).pathname.endsWith("/sign-in/email")
  );
}

export function createAuth(db: Db, config: AuthConfig) {
  const auth = betterAuth({
    baseURL: config.baseURL,
    secret: config.secret,
    trustedOrigins: [config.baseURL],
    telemetry: { enabled: false },
    database: drizzleAdapter(db, {
      provider: "pg",
      schema: {
        user: authUser,
        session: authSession,
        account: authAccount,
        verification: authVerification,
        rateLimit: authRateLimit,
      },
    }),
    // Admins create accounts; nobody signs themselves up.
    emailAndPassword: {
      enabled: true,
      disableSignUp: true,
      minPasswordLength: MIN_PASSWORD_LENGTH,
      maxPasswordLength: MAX_PASSWORD_LENGTH,
    },
    // No cookie cache: every request checks the session row, so revoking a session takes effect at once.
    session: { expiresIn: config.sessionHours * 3600, updateAge: 3600, cookieCache: { enabled: false } },
    rateLimit: {
      enabled: true,
      storage: "database",
      modelName: "rateLimit",
      window: 60,
      max: 100,
      customRules: { "/sign-in/email": { window: 60, max: config.signInPerMinute } },
    },
    databaseHooks: {
      user: { create: { before: checkUserFields }, update: { before: checkUserFields } },
      // Every path that opens a session is a sign-in; only the sign-out endpoint's delete is a sign-out
      // (expired sessions are deleted too, and the app's own verbs end sessions under their own audit row).
      session: {
        create: { after: (session) => recordSignIn(db, session) },
        delete: {
          after: async (session, ctx) => {
            if (ctx?.path === "/sign-out") await recordSignOut(db, session, clientIp(ctx));
          },
        },
      },
    },
    hooks: {
      // Count the attempt before judging it, in one statement that also says whether it may be judged.
      before: createAuthMiddleware(async (ctx) => {
        const email = ctx.path === "/sign-in/email" ? emailOf(ctx.body) : undefined;
        if (!email) return;
        const verdict = await claimSignInAttempt(db, email);
        if (!verdict.allowed) {
          await recordSignInThrottled(db, { email, ip: clientIp(ctx) });
          throw new APIError("TOO_MANY_REQUESTS", {
            message: `Too many failed sign-ins for this account. Try again in ${Math.ceil(verdict.waitMs / 1000)} s.`,
          });
        }
      }),
      after: createAuthMiddleware(async (ctx) => {
        const email = ctx.path === "/sign-in/email" ? emailOf(ctx.body) : undefined;
        if (!email) return;
        const returned = ctx.context.returned;
        if (!isAPIError(returned)) await clearSignInFailures(db, email);
        else await recordSignInFailure(db, { email, ip: clientIp(ctx), status: returned.statusCode });
      }),
    },
    plugins: [
      exposeOnlyConsoleEndpoints(),
      // For its role/banned columns and its refusal to open a session for a disabled user; its endpoints
      // are not exposed (impersonation included): users change only through lib/auth/users.ts.
      admin({
        defaultRole: "support",
        adminRoles: ["admin"],
        bannedUserMessage: "This account is disabled. Ask an admin to enable it.",
      }),
    ],
    // disableOriginCheck: false, explicitly: better-auth turns its Origin (CSRF) check off by itself when
    // NODE_ENV=test or TEST is set in the environment, and a deployment must never depend on that.
    advanced: {
      cookiePrefix: "ledger",
      useSecureCookies: config.baseURL.startsWith("https://"),
      disableOriginCheck: false,
    },
  });
  const handler = async (request: Request): Promise<Response> => {
    const response = await auth.handler(request);
    if (refusedByClientLimit(request, response)) await recordSignInRateLimited(db, getIP(request, auth.options));
    return response;
  };
  return { ...auth, handler, fetch: handler };
}

export type Auth = ReturnType<typeof createAuth>;

/** The signed-in user behind these request headers, or undefined (no, expired or revoked session, or disabled). */
export async function getSessionActor(
  auth: Auth,
  headers: Headers,
): Promise<{ actor: Actor; sessionId: string } | undefined> {
  const session = await auth.api.getSession({ headers });
  if (!session) return undefined;
  const user = session.user as { id: string; email: string; role?: string | null; banned?: boolean | null };
  if (user.banned) return undefined;
  return {
    actor: { id: user.id, email: user.email, role: (user.role ?? "support") as Role },
    sessionId: session.session.id,
  };
}

export async function getActor(auth: Auth, headers: Headers): Promise<Actor | undefined> {
  return (await getSessionActor(auth, headers))?.actor;
}

/**
 * BETTER_AUTH_SECRET when set; otherwise a random secret generated once and kept in the database,
 * so sessions survive restarts and there is never a built-in default.
 */
export async function resolveAuthSecret(db: Db, configured: string | undefined): Promise<string> {
  if (configured) return configured;
  const fresh = randomBytes(32).toString("base64url");
  await db.insert(appSetting).values({ key: "auth_secret", value: fresh }).onConflictDoNothing();
  const [row] = await db.select({ value: appSetting.value }).from(appSetting).where(eq(appSetting.key, "auth_secret"));
  if (!row) throw new Error("could not store the generated auth secret");
  return row.value;
}
