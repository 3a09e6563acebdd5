"use server";

import { revalidatePath } from "next/cache";
import { eraseSubject, previewErasure, type ErasureCounts, type ErasureResult } from "@/lib/retention/erase";
import { remainingWords } from "@/lib/retention/erase-verify";
import { actionError, type ActionResult } from "../../_lib/action-result";
import { getRequestContext } from "../../_lib/session";

export interface ErasurePreview extends ErasureCounts {
  subject: string;
  reference: string;
}

// Each lib function checks subjects.erase (admin) itself; the erasure is audited (lib/audit/audited.ts).

export async function previewErasureAction(
  _prev: ActionResult<ErasurePreview> | undefined,
  form: FormData,
): Promise<ActionResult<ErasurePreview>> {
  try {
    const { db, actor } = await getRequestContext();
    const subject = String(form.get("subject") ?? "");
    const reference = String(form.get("reference") ?? "");
    const counts = await previewErasure(db, actor, { subject });
    return { ok: true, data: { ...counts, subject, reference } };
  } catch (err) {
    return actionError(err);
  }
}

export async function eraseSubjectAction(input: {
  subject: string;
  reference?: string;
  expectedEvents: number;
}): Promise<ActionResult<ErasureResult>> {
  try {
    const { db, actor } = await getRequestContext();
    const result = await eraseSubject({
      db,
      actor,
      input: { subject: input.subject, reference: input.reference || undefined, expectedEvents: input.expectedEvents },
    });
    revalidatePath("/events");
    revalidatePath("/audit");
    if (!result.done) {
      return {
        ok: false,
        error:
          `Not done: ${result.events.toLocaleString("en")} events were redacted, but the subject is still stored in ` +
          `${remainingWords(result.remaining)}. The audit log records this erasure as an error.`,
      };
    }
    return { ok: true, data: result };
  } catch (err) {
    return actionError(err);
  }
}
