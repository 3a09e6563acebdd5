import { envVar, getEnv } from "@/lib/env";
import type { ForwardContext } from "@/lib/forward/manage";
import { secretBoxFromEnv } from "@/lib/sources/from-env";
import { getRequestContext } from "../../../_lib/session";

/** The process's wiring for the forwarding verbs: who asks, the secret box, and the forwarder's address rules. */
export async function forwardContext(): Promise<ForwardContext> {
  const { db, actor } = await getRequestContext();
  return { db, actor, box: secretBoxFromEnv(), envVar, allowPrivate: getEnv().FORWARD_ALLOW_PRIVATE };
}
