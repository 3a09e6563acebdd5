"use server";

import { revalidatePath } from "next/cache";
import { getEnv } from "@/lib/env";
import { handlerLookup } from "@/lib/handlers/registry";
import { EventKeyInput, processEventNow, requeueEvent } from "@/lib/ledger/requeue";
import { actionError, type ActionResult } from "../../_lib/action-result";
import { getRequestContext } from "../../_lib/session";

export async function requeueEventAction(input: unknown): Promise<ActionResult<{ status: string }>> {
  try {
    const { db, actor } = await getRequestContext();
    const key = EventKeyInput.parse(input);
    // requeueEvent checks the role (ops) and audits the call, refused or not.
    const data = await requeueEvent({ db, actor, input: key });
    revalidatePath("/events");
    return { ok: true, data };
  } catch (err) {
    return actionError(err);
  }
}

export async function processNowAction(input: unknown): Promise<ActionResult<{ outcome: string; error?: string }>> {
  try {
    const { db, actor } = await getRequestContext();
    const key = EventKeyInput.parse(input);
    const env = getEnv();
    const result = await processEventNow({
      db,
      actor,
      input: key,
      ctx: {
        workerId: `console:${actor?.email ?? "anonymous"}`,
        leaseMs: env.WORKER_LEASE_MS,
        handlers: handlerLookup(),
        policy: { maxAttempts: env.WORKER_MAX_ATTEMPTS, backoffBaseMs: env.WORKER_BACKOFF_BASE_MS, backoffMaxMs: env.WORKER_BACKOFF_MAX_MS },
      },
    });
    revalidatePath("/events");
    return { ok: true, data: { outcome: result.outcome, error: result.error } };
  } catch (err) {
    return actionError(err);
  }
}
