import { and, desc, eq, gt, isNull, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { auditLog } from "@/db/schema";
import type { Actor } from "@/lib/roles";

export interface AuditInput {
  action: string;
  target: string;
  detail?: Record<string, unknown>;
  result: "ok" | "refused" | "error";
  error?: string;
}

/** Append one audit row; pass the transaction that makes the change so both commit or neither does. */
export async function writeAudit(
  db: Db,
  actor: Pick<Actor, "id" | "email"> | { id: null; email: string },
  entry: AuditInput,
): Promise<void> {
  await db.insert(auditLog).values({
    actorId: actor.id,
    actorEmail: actor.email,
    action: entry.action,
    target: entry.target,
    detail: entry.detail ?? {},
    result: entry.result,
    error: entry.error ?? null,
  });
}

/** Anonymous refusals of one action within this window share one row. */
const ANONYMOUS_WINDOW = sql`interval '1 minute'`;
// Namespace for the per-action advisory locks below (two-key form: apart from single-key locks elsewhere).
const ANONYMOUS_LOCK_SPACE = 73126041;

/**
 * A refusal for a caller without a valid session. Anyone on the internet can cause these (a made-up
 * session cookie is enough), so they are aggregated: one row per action and minute, whose detail.count
 * says how many refusals it stands for and detail.lastAt when the latest was. The first refusal's
 * target and detail are kept. A per-action lock makes the count exact under a concurrent flood.
 */
export async function writeAnonymousRefusal(db: Db, entry: Omit<AuditInput, "result">): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${ANONYMOUS_LOCK_SPACE}::int, hashtext(${entry.action}))`);
    const anonymous = and(
      isNull(auditLog.actorId),
      eq(auditLog.actorEmail, "anonymous"),
      eq(auditLog.action, entry.action),
      eq(auditLog.result, "refused"),
    );
    const [recent] = await tx
      .select({ id: auditLog.id })
      .from(auditLog)
      .where(and(anonymous, gt(auditLog.at, sql`now() - ${ANONYMOUS_WINDOW}`)))
      .orderBy(desc(auditLog.id))
      .limit(1);
    if (recent) {
      // The one exception to append-only: the count on an aggregated anonymous row.
      await tx
        .update(auditLog)
        .set({
          detail: sql`${auditLog.detail} || jsonb_build_object('count', coalesce((${auditLog.detail}->>'count')::int, 1) + 1, 'lastAt', now())`,
        })
        .where(eq(auditLog.id, recent.id));
      return;
    }
    await writeAudit(
      tx,
      { id: null, email: "anonymous" },
      { ...entry, detail: { ...entry.detail, count: 1 }, result: "refused" },
    );
  });
}
