"use server";

import { changePassword } from "@/lib/auth/users";
import { actionError, type ActionResult } from "../../_lib/action-result";
import { getRequestContext } from "../../_lib/session";

export async function changePasswordAction(_prev: ActionResult | undefined, form: FormData): Promise<ActionResult> {
  try {
    const { db, actor, sessionId } = await getRequestContext();
    if (String(form.get("newPassword")) !== String(form.get("confirmPassword")))
      return { ok: false, error: "The two new passwords differ" };
    await changePassword({
      db,
      actor,
      currentSessionId: sessionId,
      input: {
        currentPassword: String(form.get("currentPassword") ?? ""),
        newPassword: String(form.get("newPassword") ?? ""),
      },
    });
    return { ok: true, data: undefined };
  } catch (err) {
    return actionError(err);
  }
}
