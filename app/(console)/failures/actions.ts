"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { requirePermission } from "@/lib/audit/audited";
import { FailureGroupKey, FAILURE_GROUP_STATUSES } from "@/lib/console/failure-groups";
import { countRequeueable, requeueMatching } from "@/lib/console/requeue-matching";
import { ResolveDeadInput, resolveDeadEvents, type ResolveDeadResult } from "@/lib/console/resolve-dead";
import { actionError, type ActionResult } from "../../_lib/action-result";
import { getRequestContext } from "../../_lib/session";

/** One failure group as the page names it: its source, type and status, and its key (kind + pattern). */
const GroupInput = z.object({
  source: z.string(),
  eventType: z.string(),
  status: z.enum(FAILURE_GROUP_STATUSES),
  key: FailureGroupKey,
});
const RequeueGroupInput = GroupInput.extend({ confirmed: z.number().int().min(1) });

const filterOf = (g: z.infer<typeof GroupInput>) => ({ source: [g.source], type: [g.eventType], status: [g.status] });

function revalidateLists() {
  revalidatePath("/failures");
  revalidatePath("/events", "layout");
  revalidatePath("/");
}

/** A key from the dead list's checkboxes: `["source","eventId"]` as JSON (an event id may hold any character). */
function keysOf(form: FormData): unknown[] {
  return form.getAll("key").map((v) => {
    try {
      const [source, eventId] = JSON.parse(String(v)) as unknown[];
      return { source, eventId };
    } catch {
      return {};
    }
  });
}

export async function resolveDeadAction(
  _prev: ActionResult<ResolveDeadResult> | undefined,
  form: FormData,
): Promise<ActionResult<ResolveDeadResult>> {
  try {
    const { db, actor } = await getRequestContext();
    const resolution = form.get("resolution") === "ignored" ? "ignored" : "resolved";
    await requirePermission(db, actor, "events.requeue", {
      action: `events.${resolution === "resolved" ? "resolve" : "ignore"}-dead`,
      target: "events",
    });
    const parsed = ResolveDeadInput.safeParse({ keys: keysOf(form), resolution, note: form.get("note") ?? "" });
    if (!parsed.success) return { ok: false, error: parsed.error.issues.map((i) => i.message).join("; ") };
    const data = await resolveDeadEvents({ db, actor, input: parsed.data });
    revalidateLists();
    return { ok: true, data };
  } catch (err) {
    return actionError(err);
  }
}

/** The exact number a group's requeue would move now: what the person confirms. */
export async function countGroupAction(input: unknown): Promise<ActionResult<{ count: number }>> {
  try {
    const { db, actor } = await getRequestContext();
    const parsed = GroupInput.safeParse(input);
    if (!parsed.success) return { ok: false, error: parsed.error.issues.map((i) => i.message).join("; ") };
    return { ok: true, data: { count: await countRequeueable(db, actor, filterOf(parsed.data), parsed.data.key) } };
  } catch (err) {
    return actionError(err);
  }
}

export async function requeueGroupAction(input: unknown): Promise<ActionResult<{ requeued: number }>> {
  try {
    const { db, actor } = await getRequestContext();
    await requirePermission(db, actor, "events.requeue", { action: "events.requeue-bulk", target: "events" });
    const parsed = RequeueGroupInput.safeParse(input);
    if (!parsed.success) return { ok: false, error: parsed.error.issues.map((i) => i.message).join("; ") };
    const { confirmed, key } = parsed.data;
    // requeueMatching audits, and refuses when the group has grown past the confirmed count.
    const data = await requeueMatching({ db, actor, input: { filter: filterOf(parsed.data), confirmed, group: key } });
    revalidateLists();
    return { ok: true, data };
  } catch (err) {
    return actionError(err);
  }
}
