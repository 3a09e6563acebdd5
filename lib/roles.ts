import { ForbiddenError } from "@/lib/errors";
import type { Role } from "@/db/schema";

/** What each action needs. Roles are ordered: ops can do everything support can, admin everything ops can. */
export const PERMISSIONS = {
  "events.read": "support",
  "audit.read": "support",
  "replay.read": "support",
  "sources.read": "support",
  "events.requeue": "ops",
  "events.process-now": "ops",
  "events.apply-tie": "ops",
  "replay.start": "ops",
  "sources.test": "ops",
  "sources.manage": "admin",
  "destinations.read": "support",
  "destinations.test": "ops",
  "destinations.manage": "admin",
  "forwards.requeue": "ops",
  "forwards.replay": "ops",
  "alerts.read": "support",
  "alerts.manage": "admin",
  "users.manage": "admin",
  "subjects.erase": "admin",
} as const satisfies Record<string, Role>;
export type Permission = keyof typeof PERMISSIONS;

const RANK: Record<Role, number> = { support: 1, ops: 2, admin: 3 };

/** Who is acting: a signed-in user, as lib verbs see them. */
export interface Actor {
  id: string;
  email: string;
  role: Role;
}

/** A role check that failed: a ForbiddenError (lib/errors.ts) that says what was needed. */
export class PermissionError extends ForbiddenError {
  constructor(
    readonly permission: Permission,
    readonly role: Role | undefined,
  ) {
    super(`${role ?? "anonymous"} may not ${permission.replace(".", ": ")} (needs ${PERMISSIONS[permission]})`);
  }
}

export { ForbiddenError };

export function can(role: Role | undefined, permission: Permission): boolean {
  return role !== undefined && RANK[role] >= RANK[PERMISSIONS[permission]];
}

export function authorize(actor: Actor | undefined, permission: Permission): asserts actor is Actor {
  if (!actor || !can(actor.role, permission)) throw new PermissionError(permission, actor?.role);
}
