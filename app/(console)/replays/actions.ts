"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { requirePermission } from "@/lib/auth/audited";
import { launchReplay, resumeReplay } from "@/lib/replay/embedded";
import { cancelReplayRun, getReplayRun, replayInputFromPreview } from "@/lib/replay/runs";
import { actionError, type ActionResult } from "../../_lib/action-result";
import { getRequestContext } from "../../_lib/session";

// datetime-local sends "2026-11-01T10:00" with no zone: the form says UTC, so it is read as UTC.
const utcTime = (label: string) =>
  z
    .string()
    .trim()
    .regex(/^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d)?$/, `${label} must be a date and time`)
    .transform((v) => (/(Z|[+-]\d\d:?\d\d)$/.test(v) ? v : `${v}Z`));

const PreviewForm = z.object({
  source: z.string().min(1, "Choose a source"),
  since: utcTime("Since"),
  until: z.union([z.literal(""), utcTime("Until")]).optional(),
  types: z.string().optional(),
});

const RunRef = z.object({ id: z.coerce.number().int().positive() });

async function requireReplayRole(target: string) {
  const { db, actor } = await getRequestContext();
  await requirePermission(db, actor, "replay.start", { action: "replay.start", target });
  return { db, actor };
}

/** A dry run of the form's window, run in the background: its counts are the preview. */
export async function previewReplayAction(
  _prev: ActionResult<{ runId: number }> | undefined,
  form: FormData,
): Promise<ActionResult<{ runId: number }>> {
  try {
    const { actor } = await requireReplayRole("replay:preview");
    const f = PreviewForm.parse(Object.fromEntries(form));
    const types = (f.types ?? "")
      .split(",")
      .map((t) => t.trim())
      .filter(Boolean);
    const run = await launchReplay({
      actor,
      input: { source: f.source as "stripe", since: f.since, until: f.until || undefined, types, dryRun: true },
    });
    revalidatePath("/replays");
    return { ok: true, data: { runId: run.id } };
  } catch (err) {
    return actionError(err);
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
