import type { Db, Tx } from "@/db/client";
import { writeAudit } from "@/lib/audit";
import { describeError } from "@/lib/errors";
import { authorize, ForbiddenError, type Actor, type Permission } from "./roles";

export interface AuditedAction {
  action: string;
  target: string;
  detail?: Record<string, unknown>;
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
  try {
    authorize(actor, permission);
  } catch (err) {
    if (err instanceof ForbiddenError)
      await writeAudit(db, actor ?? { id: null, email: "anonymous" }, { ...entry, result: "refused", error: err.message });
    throw err;
  }
  try {
    return await db.transaction(async (tx) => {
      const result = await change(tx, actor);
      await writeAudit(tx, actor, { ...entry, result: "ok" });
      return result;
    });
  } catch (err) {
    await writeAudit(db, actor, { ...entry, result: "error", error: describeError(err) }).catch(() => {});
    throw err;
  }
}
