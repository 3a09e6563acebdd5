import type { Db, Tx } from "@/db/client";
import { writeAudit } from "@/lib/audit";
import { describeError } from "@/lib/errors";
import { authorize, ForbiddenError, type Actor, type Permission } from "./roles";

export interface AuditedAction {
  action: string;
  target: string;
  detail?: Record<string, unknown>;
}

/** The role check on its own, for adapters that check before parsing input: a refusal leaves its audit row. */
export async function requirePermission(db: Db, actor: Actor | undefined, permission: Permission, entry: AuditedAction): Promise<Actor> {
  try {
    authorize(actor, permission);
    return actor;
  } catch (err) {
    if (err instanceof ForbiddenError)
      await writeAudit(db, actor ?? { id: null, email: "anonymous" }, { ...entry, result: "refused", error: err.message });
    throw err;
  }
}

/**
 * The shape of every state-changing console verb: check the role, run the change in one transaction
 * with its audit row, and still leave an audit row (refused / error) when it does not happen.
 */
export async function audited<T>(
  db: Db,
  actor: Actor | undefined,
  permission: Permission,
  entry: AuditedAction,
  change: (tx: Tx, actor: Actor) => Promise<T>,
): Promise<T> {
  const who = await requirePermission(db, actor, permission, entry);
  try {
    return await db.transaction(async (tx) => {
      const result = await change(tx, who);
      await writeAudit(tx, who, { ...entry, result: "ok" });
      return result;
    });
  } catch (err) {
    await writeAudit(db, who, { ...entry, result: "error", error: describeError(err) }).catch(() => {});
    throw err;
  }
}
