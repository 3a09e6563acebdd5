import { getEnv } from "@/lib/env";
import { secretBoxFromEnv, sourcesFromEnv } from "@/lib/sources/from-env";
import type { ManageContext } from "@/lib/sources/manage";
import { getRequestContext } from "../../../_lib/session";

/** The process's wiring for the sources verbs: who asks, the sources directory, and the secret box. */
export async function sourcesContext(): Promise<ManageContext> {
  const { db, actor } = await getRequestContext();
  return { db, actor, sources: sourcesFromEnv(), box: secretBoxFromEnv() };
}

/** The receiver in this process: a test event goes over HTTP to it, as a provider's would. */
export function receiverBaseUrl(): string {
  return `http://127.0.0.1:${getEnv().PORT}`;
}
