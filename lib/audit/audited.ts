import { ZodError } from "zod";
import type { Db, Tx } from "@/db/client";
import { writeAnonymousRefusal, writeAudit } from "@/lib/audit/write";
import { describeError } from "@/lib/errors";
import { authorize, ForbiddenError, type Actor, type Permission } from "@/lib/roles";

/** What a console verb takes: verbNoun({ db, actor, input }), the input not parsed yet (the verb parses it). */
export interface VerbArgs<Input> {
  db: Db;
  actor: Actor | undefined;
  input: Input;
}

export interface AuditedAction {
  action: string;
  target: string;
  detail?: Record<string, unknown>;
}

/**
 * The role check on its own, for adapters that check before parsing input: a refusal leaves its audit
 * row. Refusals without a session are aggregated per action and minute (anyone can cause them).
 */
export async function requirePermission(
  db: Db,
  actor: Actor | undefined,
  permission: Permission,
  entry: AuditedAction,
): Promise<Actor> {
  try {
    authorize(actor, permission);
    return actor;
  } catch (err) {
    if (err instanceof ForbiddenError) {
      if (actor) await writeAudit(db, actor, { ...entry, result: "refused", error: err.message });
      else await writeAnonymousRefusal(db, { ...entry, error: err.message });
    }
    throw err;
  }
}

/** The reason as the log shows it: a ZodError's own message is its issues as JSON, so keep their words. */
function errorText(err: unknown): string {
  if (err instanceof ZodError) return err.issues.map((i) => i.message).join("; ");
  return describeError(err);
}

/**
 * The shape of every state-changing console verb: check the role, run the change in one transaction
 * with its audit row, and still leave an audit row (refused / error) when it does not happen.
 * `change` may refine its copy of the entry (a target or detail known only once rows are read); the
 * refusal row has the entry as given, the ok and error rows the refined one.
 */
export async function audited<T>(
  db: Db,
  actor: Actor | undefined,
  permission: Permission,
  entry: AuditedAction,
  change: (tx: Tx, actor: Actor, entry: AuditedAction) => Promise<T>,
): Promise<T> {
  const who = await requirePermission(db, actor, permission, entry);
  const current: AuditedAction = { ...entry };
  try {
    return await db.transaction(async (tx) => {
      const result = await change(tx, who, current);
      await writeAudit(tx, who, { ...current, result: "ok" });
      return result;
    });
  } catch (err) {
    await writeAudit(db, who, { ...current, result: "error", error: errorText(err) }).catch(() => {});
    throw err;
  }
}
