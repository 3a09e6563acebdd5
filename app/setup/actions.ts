"use server";

import { redirect } from "next/navigation";
import { completeSetup } from "@/lib/auth/bootstrap";
import { getRequestContext } from "../_lib/session";
import { actionError, type ActionResult } from "../_lib/action-result";

export async function completeSetupAction(_prev: ActionResult | undefined, form: FormData): Promise<ActionResult> {
  try {
    const { db } = await getRequestContext();
    // completeSetup checks the one-time token and that no user exists yet, under a lock.
    await completeSetup(db, {
      token: String(form.get("token") ?? ""),
      email: String(form.get("email") ?? ""),
      password: String(form.get("password") ?? ""),
    });
  } catch (err) {
    return actionError(err);
  }
  redirect("/sign-in");
}
