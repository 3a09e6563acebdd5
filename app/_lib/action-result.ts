import { unstable_rethrow } from "next/navigation";
import { ZodError } from "zod";
import { describeError, expectedErrorMessage } from "@/lib/errors";

export type ActionResult<T = undefined> = { ok: true; data: T } | { ok: false; error: string };

/**
 * Expected failures come back as values with a message a person can act on (Next hides thrown
 * messages in production); anything else is logged and reported generically.
 */
export function actionError(err: unknown): { ok: false; error: string } {
  unstable_rethrow(err); // redirect() and notFound() are control flow, not failures
  const expected = expectedErrorMessage(err);
  if (expected !== undefined) return { ok: false, error: expected };
  if (err instanceof ZodError) return { ok: false, error: err.issues.map((i) => i.message).join("; ") };
  console.error("[action]", describeError(err));
  return { ok: false, error: "Something went wrong; the change was not made. Try again, or check the server log." };
}
