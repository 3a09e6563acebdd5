import { getDb } from "@/db";
import type { Db } from "@/db/client";
import { getAuth } from "@/lib/auth/runtime";
import { getSessionActor } from "@/lib/auth/server";
import type { Actor } from "@/lib/roles";

/** What an adapter (page, action, route) needs to call a lib verb: the database and who is asking. */
export async function requestContext(
  headers: Headers,
): Promise<{ db: Db; actor: Actor | undefined; sessionId: string | undefined }> {
  const [db, auth] = await Promise.all([getDb(), getAuth()]);
  const session = await getSessionActor(auth, headers);
  return { db, actor: session?.actor, sessionId: session?.sessionId };
}
