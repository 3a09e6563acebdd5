import { headers } from "next/headers";
import { forbidden, redirect } from "next/navigation";
import { can, type Actor, type Permission } from "@/lib/roles";
import { requestContext } from "@/lib/context";
import { signInPath } from "../sign-in/safe-next";

export async function getRequestContext() {
  return requestContext(await headers());
}

/** For pages: signed out → /sign-in (back here after), signed in without the role → 403. */
export async function requirePage(permission: Permission, path: string) {
  const ctx = await getRequestContext();
  if (!ctx.actor) redirect(signInPath(path));
  if (!can(ctx.actor.role, permission)) forbidden();
  return ctx as typeof ctx & { actor: Actor };
}
