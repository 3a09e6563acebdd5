import { randomUUID } from "node:crypto";
import { hashPassword, verifyPassword } from "better-auth/crypto";
import { and, asc, count, eq, ne, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "@/db/client";
import { authAccount, authSession, authUser, ROLES } from "@/db/schema";
import { ConflictError, NotFoundError } from "@/lib/errors";
import { audited, type AuditedAction, type VerbArgs } from "@/lib/audit/audited";
import { authorize, type Actor } from "@/lib/roles";
import { MAX_NAME_LENGTH, MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from "./server";

/** What every password must meet (here and in better-auth's own check): forms show these same numbers. */
export const PASSWORD_RULES = { minLength: MIN_PASSWORD_LENGTH, maxLength: MAX_PASSWORD_LENGTH } as const;

const Password = z
  .string()
  .min(MIN_PASSWORD_LENGTH, `Password must be at least ${MIN_PASSWORD_LENGTH} characters`)
  .max(MAX_PASSWORD_LENGTH, `Password must be at most ${MAX_PASSWORD_LENGTH} characters`);

export const CreateUserInput = z.object({
  email: z.string().trim().toLowerCase().pipe(z.email("Enter a valid email address")),
  name: z.string().trim().max(MAX_NAME_LENGTH).optional(),
  role: z.enum(ROLES),
  password: Password,
});
export type CreateUserInput = z.input<typeof CreateUserInput>;

export interface UserSummary {
  id: string;
  email: string;
  name: string;
  role: (typeof ROLES)[number];
  disabled: boolean;
  createdAt: Date;
}

export async function listUsers({ db, actor }: { db: Db; actor: Actor | undefined }): Promise<UserSummary[]> {
  authorize(actor, "users.manage");
  const rows = await db
    .select({
      id: authUser.id,
      email: authUser.email,
      name: authUser.name,
      role: authUser.role,
      disabled: authUser.banned,
      createdAt: authUser.createdAt,
    })
    .from(authUser)
    .orderBy(asc(authUser.email));
  return rows;
}

/** Inserts a user with a credential account; no role check (used by the verbs below and by bootstrap). */
export async function insertUser(
  tx: Db,
  input: z.output<typeof CreateUserInput>,
  hash: (password: string) => Promise<string> = hashPassword,
): Promise<string> {
  const id = randomUUID();
  const [clash] = await tx.select({ id: authUser.id }).from(authUser).where(eq(authUser.email, input.email));
  if (clash) throw new ConflictError(`a user with email ${input.email} already exists`);
  await tx.insert(authUser).values({
    id,
    email: input.email,
    name: input.name || input.email.split("@")[0]!,
    role: input.role,
    emailVerified: true,
  });
  await tx.insert(authAccount).values({
    id: randomUUID(),
    accountId: id,
    providerId: "credential",
    userId: id,
    password: await hash(input.password),
  });
  return id;
}

/** Bounded, for audit targets built from raw input before it is validated. */
const userTarget = (value: unknown) =>
  `user:${String(value ?? "")
    .trim()
    .toLowerCase()
    .slice(0, 320)}`;

/**
 * One user-management change at a time (the same lock as the first-admin bootstrap). Row locks on the
 * target alone let two admins demote or disable each other at once, each still seeing the other as admin.
 */
export async function lockUserChanges(tx: Db): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(7312604118022020)`);
}

export async function createUser({ db, actor, input }: VerbArgs<CreateUserInput>): Promise<{ id: string }> {
  const entry = {
    action: "users.create",
    target: userTarget(input.email),
    detail: { role: String(input.role).slice(0, 32) },
  };
  return audited(db, actor, "users.manage", entry, async (tx) => {
    const data = CreateUserInput.parse(input);
    await lockUserChanges(tx);
    return { id: await insertUser(tx, data) };
  });
}

async function adminsBesides(tx: Db, userId: string): Promise<number> {
  const [row] = await tx
    .select({ n: count() })
    .from(authUser)
    .where(and(eq(authUser.role, "admin"), eq(authUser.banned, false), ne(authUser.id, userId)));
  return row?.n ?? 0;
}

/** Takes the user-changes lock, then the user's row, and names the user in the audit entry. */
async function lockUser(tx: Db, userId: string, entry: AuditedAction) {
  await lockUserChanges(tx);
  const [user] = await tx.select().from(authUser).where(eq(authUser.id, userId)).for("update");
  if (!user) throw new NotFoundError(`no user ${userId}`);
  entry.target = `user:${user.email}`;
  return user;
}

/** Refuses a change that would leave no enabled admin besides `userId`. */
async function keepAnotherAdmin(tx: Db, userId: string): Promise<void> {
  if ((await adminsBesides(tx, userId)) === 0) throw new ConflictError("at least one enabled admin must remain");
}

export const SetRoleInput = z.object({ userId: z.string().min(1), role: z.enum(ROLES) });

export async function setUserRole({ db, actor, input }: VerbArgs<z.input<typeof SetRoleInput>>): Promise<void> {
  await audited(
    db,
    actor,
    "users.manage",
    { action: "users.set-role", target: userTarget(input.userId) },
    async (tx, _who, entry) => {
      const { userId, role } = SetRoleInput.parse(input);
      const user = await lockUser(tx, userId, entry);
      entry.detail = { from: user.role, to: role };
      if (user.role === "admin" && role !== "admin") await keepAnotherAdmin(tx, userId);
      await tx.update(authUser).set({ role, updatedAt: new Date() }).where(eq(authUser.id, userId));
    },
  );
}

export const SetDisabledInput = z.object({ userId: z.string().min(1), disabled: z.boolean() });

/** Disabling ends every session of the user in the same transaction: they are out at their next request. */
export async function setUserDisabled({ db, actor, input }: VerbArgs<z.input<typeof SetDisabledInput>>): Promise<void> {
  const entry = {
    action: input.disabled === false ? "users.enable" : "users.disable",
    target: userTarget(input.userId),
  };
  await audited(db, actor, "users.manage", entry, async (tx, who, current) => {
    const { userId, disabled } = SetDisabledInput.parse(input);
    const user = await lockUser(tx, userId, current);
    if (disabled && user.id === who.id) throw new ConflictError("you cannot disable your own account");
    if (disabled && user.role === "admin") await keepAnotherAdmin(tx, userId);
    await tx
      .update(authUser)
      .set({ banned: disabled, banReason: disabled ? `disabled by ${who.email}` : null, updatedAt: new Date() })
      .where(eq(authUser.id, userId));
    const ended = disabled
      ? (await tx.delete(authSession).where(eq(authSession.userId, userId)).returning({ id: authSession.id })).length
      : 0;
    current.detail = disabled ? { sessionsEnded: ended } : {};
  });
}

export const ChangePasswordInput = z
  .object({ currentPassword: z.string().min(1, "Enter your current password"), newPassword: Password })
  .refine((v) => v.currentPassword !== v.newPassword, {
    message: "The new password must differ from the current one",
    path: ["newPassword"],
  });

/** Any signed-in user, for their own account. Other sessions of the user end; the current one stays. */
export async function changePassword({
  db,
  actor,
  input,
  currentSessionId,
}: VerbArgs<z.input<typeof ChangePasswordInput>> & { currentSessionId?: string }): Promise<void> {
  await audited(
    db,
    actor,
    "events.read",
    { action: "users.change-password", target: userTarget(actor?.email ?? "unknown") },
    async (tx, who) => {
      const data = ChangePasswordInput.parse(input);
      const [account] = await tx
        .select()
        .from(authAccount)
        .where(and(eq(authAccount.userId, who.id), eq(authAccount.providerId, "credential")))
        .for("update");
      if (!account?.password || !(await verifyPassword({ hash: account.password, password: data.currentPassword })))
        throw new ConflictError("The current password is not correct");
      await tx
        .update(authAccount)
        .set({ password: await hashPassword(data.newPassword), updatedAt: new Date() })
        .where(eq(authAccount.id, account.id));
      await tx
        .delete(authSession)
        .where(
          currentSessionId
            ? and(eq(authSession.userId, who.id), ne(authSession.id, currentSessionId))
            : eq(authSession.userId, who.id),
        );
    },
  );
}
