"use server";

import { revalidatePath } from "next/cache";
import { resetAlertRule, setAlertRule } from "@/lib/alerts/manage";
import { actionError, type ActionResult } from "../../_lib/action-result";
import { getRequestContext } from "../../_lib/session";

// Each lib verb checks alerts.manage (admin) itself and audits the call, refusals included.

export async function setAlertRuleAction(_prev: ActionResult | undefined, form: FormData): Promise<ActionResult> {
  try {
    const { db, actor } = await getRequestContext();
    const threshold = form.get("threshold");
    await setAlertRule({
      db,
      actor,
      input: {
        rule: String(form.get("rule") ?? "") as "dead_event",
        enabled: form.get("enabled") === "on",
        threshold: typeof threshold === "string" && threshold.trim() !== "" ? threshold.trim() : undefined,
      },
    });
    revalidatePath("/alerts");
    return { ok: true, data: undefined };
  } catch (err) {
    return actionError(err);
  }
}

export async function resetAlertRuleAction(input: { rule: string }): Promise<ActionResult> {
  try {
    const { db, actor } = await getRequestContext();
    await resetAlertRule({ db, actor, input: { rule: input.rule as "dead_event" } });
    revalidatePath("/alerts");
    return { ok: true, data: undefined };
  } catch (err) {
    return actionError(err);
  }
}
