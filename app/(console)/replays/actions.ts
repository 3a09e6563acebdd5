"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { requirePermission } from "@/lib/audit/audited";
import { launchReplay, getReplaySetup, resumeReplay } from "@/lib/replay/embedded";
import { getReplayWindow, REPLAY_FORM_FIELDS, type ReplayFormErrors, type ReplayFormValues } from "@/lib/replay/form";
import { cancelReplayRun, getReplayRun, replayInputFromPreview } from "@/lib/replay/runs";
import { actionError, type ActionResult } from "../../_lib/action-result";
import { getRequestContext } from "../../_lib/session";
import { plural } from "@/lib/format/words";

const RunRef = z.object({ id: z.coerce.number().int().positive() });

async function requireReplayRole(target: string) {
  const { db, actor } = await getRequestContext();
  await requirePermission(db, actor, "replay.start", { action: "replay.start", target });
  return { db, actor };
}

/** The form's answer: a preview to open, or a message per field with what was entered, to show again. */
export type PreviewFormState =
  | { ok: true; data: { runId: number } }
  | { ok: false; error: string; fieldErrors?: ReplayFormErrors; values?: ReplayFormValues };

const formValues = (form: FormData): ReplayFormValues =>
  Object.fromEntries(
    REPLAY_FORM_FIELDS.map((f) => {
      const v = form.get(f);
      return [f, typeof v === "string" ? v.slice(0, 2000) : ""];
    }),
  ) as ReplayFormValues;

/** A dry run of the form's window, run in the background: its counts are the preview. */
export async function previewReplayAction(
  _prev: PreviewFormState | undefined,
  form: FormData,
): Promise<PreviewFormState> {
  const values = formValues(form);
  try {
    const { actor } = await requireReplayRole("replay:preview");
    const ready = getReplaySetup()
      .filter((s) => s.ready)
      .map((s) => s.source);
    const parsed = getReplayWindow(values, { ready, now: new Date() });
    if (!parsed.ok) {
      const n = Object.keys(parsed.errors).length;
      return {
        ok: false,
        error: n === 1 ? "Check the field marked above." : `Check the ${plural(n, "field")} marked above.`,
        fieldErrors: parsed.errors,
        values,
      };
    }
    const run = await launchReplay({ actor, input: { ...parsed.input, dryRun: true } });
    revalidatePath("/replays");
    return { ok: true, data: { runId: run.id } };
  } catch (err) {
    return { ...actionError(err), values };
  }
}

/** The real run for a finished preview, same window; it continues server-side after this returns. */
export async function startReplayAction(input: unknown): Promise<ActionResult<{ runId: number }>> {
  try {
    const { db, actor } = await requireReplayRole("replay:start");
    const { id } = RunRef.parse(input);
    const run = await launchReplay({ actor, input: replayInputFromPreview(await getReplayRun(db, id)) });
    revalidatePath("/replays");
    return { ok: true, data: { runId: run.id } };
  } catch (err) {
    return actionError(err);
  }
}

export async function cancelReplayAction(input: unknown): Promise<ActionResult<{ status: string }>> {
  try {
    const { db, actor } = await requireReplayRole("replay:cancel");
    const { id } = RunRef.parse(input);
    const run = await cancelReplayRun({ db, actor, id });
    revalidatePath("/replays");
    return { ok: true, data: { status: run.status } };
  } catch (err) {
    return actionError(err);
  }
}

/** A failed or cancelled run continues from its cursor; what it already counted stays counted once. */
export async function resumeReplayAction(input: unknown): Promise<ActionResult<{ status: string }>> {
  try {
    const { actor } = await requireReplayRole("replay:resume");
    const { id } = RunRef.parse(input);
    const run = await resumeReplay({ actor, id });
    revalidatePath("/replays");
    return { ok: true, data: { status: run.status } };
  } catch (err) {
    return actionError(err);
  }
}
