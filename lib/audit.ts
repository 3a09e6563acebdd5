import { desc, lt } from "drizzle-orm";
import type { Db } from "@/db/client";
import { auditLog, type AuditEntry } from "@/db/schema";
import { authorize, type Actor } from "@/lib/auth/roles";

export interface AuditInput {
  action: string;
  target: string;
  detail?: Record<string, unknown>;
  result: "ok" | "refused" | "error";
  error?: string;
}

/** Append one audit row; pass the transaction that makes the change so both commit or neither does. */
export async function writeAudit(db: Db, actor: Pick<Actor, "id" | "email"> | { id: null; email: string }, entry: AuditInput): Promise<void> {
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

/** Newest first, keyset-paged on id. */
export async function listAudit(db: Db, actor: Actor | undefined, opts: { before?: number; limit?: number } = {}): Promise<{ rows: AuditEntry[]; nextCursor: number | undefined }> {
  authorize(actor, "audit.read");
  const limit = Math.min(Math.max(opts.limit ?? 50, 1), 200);
  const rows = await db
    .select()
    .from(auditLog)
    .where(opts.before ? lt(auditLog.id, opts.before) : undefined)
    .orderBy(desc(auditLog.id))
    .limit(limit + 1);
  const page = rows.slice(0, limit);
  return { rows: page, nextCursor: rows.length > limit ? page[page.length - 1]?.id : undefined };
}
