"use server";

import { revalidatePath } from "next/cache";
import { createUser, setUserDisabled, setUserRole } from "@/lib/auth/users";
import { actionError, type ActionResult } from "../../_lib/action-result";
import { getRequestContext } from "../../_lib/session";

// Each lib verb checks users.manage (admin) itself and audits the call.

export async function createUserAction(_prev: ActionResult | undefined, form: FormData): Promise<ActionResult> {
  try {
    const { db, actor } = await getRequestContext();
    await createUser({
      db,
      actor,
      input: {
        email: String(form.get("email") ?? ""),
        name: String(form.get("name") ?? ""),
        role: String(form.get("role")) as "support",
        password: String(form.get("password") ?? ""),
      },
    });
    revalidatePath("/users");
    return { ok: true, data: undefined };
  } catch (err) {
    return actionError(err);
  }
}

export async function setUserRoleAction(input: { userId: string; role: string }): Promise<ActionResult> {
  try {
    const { db, actor } = await getRequestContext();
    await setUserRole({ db, actor, input: input as { userId: string; role: "support" } });
    revalidatePath("/users");
    return { ok: true, data: undefined };
  } catch (err) {
    return actionError(err);
  }
}

export async function setUserDisabledAction(input: { userId: string; disabled: boolean }): Promise<ActionResult> {
  try {
    const { db, actor } = await getRequestContext();
    await setUserDisabled({ db, actor, input });
    revalidatePath("/users");
    return { ok: true, data: undefined };
  } catch (err) {
    return actionError(err);
  }
}
