import { unstable_rethrow } from "next/navigation";
import { ZodError } from "zod";
import { ForbiddenError } from "@/lib/auth/roles";
import { describeError } from "@/lib/errors";
import { ConflictError, NotFoundError } from "@/lib/ledger/types";

export type ActionResult<T = undefined> = { ok: true; data: T } | { ok: false; error: string };

/**
 * Expected failures come back as values with a message a person can act on (Next hides thrown
 * messages in production); anything else is logged and reported generically.
 */
export function actionError(err: unknown): { ok: false; error: string } {
  unstable_rethrow(err); // redirect() and notFound() are control flow, not failures
  if (err instanceof ForbiddenError) return { ok: false, error: `Not allowed: ${err.message}` };
  if (err instanceof ConflictError || err instanceof NotFoundError) return { ok: false, error: err.message };
  if (err instanceof ZodError) return { ok: false, error: err.issues.map((i) => i.message).join("; ") };
  console.error("[action]", describeError(err));
  return { ok: false, error: "Something went wrong; the change was not made. Try again, or check the server log." };
}
