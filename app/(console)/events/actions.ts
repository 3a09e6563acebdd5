"use server";

import { sourcesFromEnv } from "@/lib/sources/from-env";
import { revalidatePath } from "next/cache";
import { getEnv } from "@/lib/env";
import { z } from "zod";
import { listEvents } from "@/lib/console/list-events";
import { EventFilter, type EventFilterInput } from "@/lib/console/event-filter";
import type { ProcessOutcome } from "@/lib/ledger/process";
import { EventKeyInput, processEventNow, requeueEvent } from "@/lib/console/requeue";
import { countRequeueable, requeueMatching, RequeueMatchingInput } from "@/lib/console/requeue-matching";
import { applyTiedEvent } from "@/lib/console/ties";
import { workerSettingsFromEnv } from "@/lib/worker/settings";
import { actionError, type ActionResult } from "../../_lib/action-result";
import { getRequestContext } from "../../_lib/session";

const NewerInput = z.object({ filter: z.record(z.string(), z.unknown()), head: z.string().max(600) });

export async function requeueEventAction(input: unknown): Promise<ActionResult<{ status: "claimed" }>> {
  try {
    const { db, actor } = await getRequestContext();
    const key = EventKeyInput.parse(input);
    // requeueEvent checks the role (ops) and audits the call, refused or not.
    const data = await requeueEvent({ db, actor, input: key });
    revalidatePath("/events", "layout");
    return { ok: true, data };
  } catch (err) {
    return actionError(err);
  }
}

export async function processNowAction(
  input: unknown,
): Promise<ActionResult<{ outcome: ProcessOutcome; error?: string }>> {
  try {
    const { db, actor } = await getRequestContext();
    const key = EventKeyInput.parse(input);
    // The same lease length, retry policy and handlers as the worker: process-now is one more host of it.
    const ctx = workerSettingsFromEnv(getEnv(), "console", (slug) => sourcesFromEnv().kindOf(slug));
    const result = await processEventNow({ db, actor, input: key, ctx });
    revalidatePath("/events", "layout");
    return { ok: true, data: { outcome: result.outcome, error: result.error } };
  } catch (err) {
    return actionError(err);
  }
}

export async function countRequeueableAction(filter: unknown): Promise<ActionResult<{ count: number }>> {
  try {
    const { db, actor } = await getRequestContext();
    EventFilter.parse(filter);
    return { ok: true, data: { count: await countRequeueable(db, actor, filter as EventFilterInput) } };
  } catch (err) {
    return actionError(err);
  }
}

export async function requeueMatchingAction(input: unknown): Promise<ActionResult<{ requeued: number }>> {
  try {
    const { db, actor } = await getRequestContext();
    RequeueMatchingInput.parse(input);
    // requeueMatching checks the role (ops), audits, and refuses a set larger than the confirmed count.
    const data = await requeueMatching({ db, actor, input: input as z.input<typeof RequeueMatchingInput> });
    revalidatePath("/events");
    revalidatePath("/");
    return { ok: true, data };
  } catch (err) {
    return actionError(err);
  }
}

/** Ops decide an undecided tie for this event (applyTiedEvent checks the role and audits the call). */
export async function applyTieAction(input: unknown): Promise<ActionResult<{ replacedEventId: string }>> {
  try {
    const { db, actor } = await getRequestContext();
    const key = EventKeyInput.parse(input);
    const { handlers } = workerSettingsFromEnv(getEnv(), "console", (slug) => sourcesFromEnv().kindOf(slug));
    const { replacedEventId } = await applyTiedEvent({ db, actor, input: key, handlers });
    revalidatePath("/events", "layout");
    revalidatePath("/entities", "layout");
    revalidatePath("/");
    return { ok: true, data: { replacedEventId } };
  } catch (err) {
    return actionError(err);
  }
}

/** How many events newer than the list's first row match its filter (up to 100): the "new events" indicator. */
export async function countNewerEventsAction(input: unknown): Promise<ActionResult<{ count: number }>> {
  try {
    const { db, actor } = await getRequestContext();
    const { filter, head } = NewerInput.parse(input);
    const page = await listEvents(db, actor, {
      filter: filter as EventFilterInput,
      cursor: head,
      back: true,
      limit: 100,
    });
    return { ok: true, data: { count: page.rows.length } };
  } catch (err) {
    return actionError(err);
  }
}
