"use server";

import { revalidatePath } from "next/cache";
import { requirePermission } from "@/lib/audit/audited";
import { ValidationError } from "@/lib/errors";
import {
  createDestination,
  rotateDestinationSecret,
  setDestinationState,
  updateDestination,
  type CreateDestinationInput,
  type IssuedDestinationSecret,
} from "@/lib/forward/manage";
import { countRequeueableForwards, requeueForward, requeueForwards } from "@/lib/forward/requeue";
import { replayWindow, type ReplayWindowResult } from "@/lib/forward/replay-window";
import { sendTestDelivery, type TestDeliveryResult } from "@/lib/forward/test-delivery";
import { parseUtcDateTime } from "@/lib/replay/form";
import { actionError, type ActionResult } from "../../_lib/action-result";
import { eventHref } from "../events/_components/links";
import { forwardContext } from "./_lib/context";

// Each lib verb checks the role (destinations.manage: admin; test, requeue and replay: ops) and audits the call.
// The form actions check first too, so a refusal is not hidden behind a complaint about the input.

/** A new secret as the browser gets it: the plaintext this once, never again. */
export type IssuedView = Omit<IssuedDestinationSecret, "othersExpireAt"> & { othersExpireAt: string | null };
export type IssuedResult = ActionResult<IssuedView>;
export type FormResult = ActionResult<{ name: string }>;
export type ReplayView = Omit<ReplayWindowResult, "resumeFrom"> & { from: string; to: string; resumeFrom?: string };
export type ReplayResult = ActionResult<ReplayView>;

const view = (i: IssuedDestinationSecret): IssuedView => ({
  ...i,
  othersExpireAt: i.othersExpireAt?.toISOString() ?? null,
});

const text = (form: FormData, name: string) => {
  const v = form.get(name);
  return typeof v === "string" ? v.trim() : "";
};

/** A list field: commas, spaces or lines between items; empty is "every". */
function listOf(form: FormData, name: string): string[] | undefined {
  const items = text(form, name)
    .split(/[\s,]+/)
    .filter((s) => s.length > 0);
  return items.length > 0 ? items : undefined;
}

function wholeNumber(form: FormData, name: string, label: string): number | undefined {
  const raw = text(form, name);
  if (!raw) return undefined;
  if (!/^\d+$/.test(raw)) throw new ValidationError(`${label}: a whole number, like 10`, name);
  return Number(raw);
}

function fieldsFrom(form: FormData): CreateDestinationInput {
  return {
    name: text(form, "name"),
    url: text(form, "url"),
    sources: listOf(form, "sources"),
    types: listOf(form, "types"),
    mode: text(form, "mode") as "every",
    format: text(form, "format") as "standard",
    maxInFlight: wholeNumber(form, "maxInFlight", "Requests in flight"),
    timeoutMs: wholeNumber(form, "timeoutMs", "Timeout"),
    ratePerSecond: wholeNumber(form, "ratePerSecond", "Rate"),
    maxAttempts: wholeNumber(form, "maxAttempts", "Attempts"),
  };
}

async function manageContext(action: string, target: string) {
  const ctx = await forwardContext();
  await requirePermission(ctx.db, ctx.actor, "destinations.manage", { action, target });
  return ctx;
}

export async function createDestinationAction(_prev: IssuedResult | undefined, form: FormData): Promise<IssuedResult> {
  try {
    const ctx = await manageContext("destinations.create", "destination:new");
    const issued = await createDestination(ctx, fieldsFrom(form));
    revalidatePath("/destinations");
    return { ok: true, data: view(issued) };
  } catch (err) {
    return actionError(err);
  }
}

export async function updateDestinationAction(_prev: FormResult | undefined, form: FormData): Promise<FormResult> {
  try {
    const ctx = await manageContext("destinations.update", `destination:${text(form, "name").slice(0, 64)}`);
    const r = await updateDestination(ctx, fieldsFrom(form));
    revalidatePath("/destinations");
    return { ok: true, data: r };
  } catch (err) {
    return actionError(err);
  }
}

export async function setDestinationStateAction(input: {
  name: string;
  state: "active" | "paused" | "disabled";
}): Promise<ActionResult<{ state: string }>> {
  try {
    const r = await setDestinationState(await forwardContext(), { name: input.name, state: input.state });
    revalidatePath("/destinations");
    return { ok: true, data: r };
  } catch (err) {
    return actionError(err);
  }
}

export async function rotateDestinationSecretAction(input: {
  name: string;
  overlapHours: number;
}): Promise<IssuedResult> {
  try {
    const issued = await rotateDestinationSecret(await forwardContext(), input);
    revalidatePath("/destinations");
    return { ok: true, data: view(issued) };
  } catch (err) {
    return actionError(err);
  }
}

export async function sendTestDeliveryAction(input: { name: string }): Promise<ActionResult<TestDeliveryResult>> {
  try {
    const r = await sendTestDelivery(await forwardContext(), { name: String(input.name) });
    revalidatePath("/destinations");
    return { ok: true, data: r };
  } catch (err) {
    return actionError(err);
  }
}

export async function countRequeueableForwardsAction(input: {
  destination: string;
  statuses: ("failed" | "dead")[];
}): Promise<ActionResult<number>> {
  try {
    return { ok: true, data: await countRequeueableForwards(await forwardContext(), input) };
  } catch (err) {
    return actionError(err);
  }
}

export async function requeueForwardsAction(input: {
  destination: string;
  statuses: ("failed" | "dead")[];
  confirmed: number;
}): Promise<ActionResult<{ requeued: number }>> {
  try {
    const r = await requeueForwards(await forwardContext(), input);
    revalidatePath("/destinations");
    return { ok: true, data: r };
  } catch (err) {
    return actionError(err);
  }
}

export async function requeueForwardAction(input: {
  destination: string;
  source: string;
  eventId: string;
}): Promise<ActionResult<{ status: string }>> {
  try {
    const r = await requeueForward(await forwardContext(), input);
    revalidatePath(eventHref(input));
    revalidatePath("/destinations");
    return { ok: true, data: r };
  } catch (err) {
    return actionError(err);
  }
}

function windowEnd(form: FormData, name: "from" | "to", label: string): Date {
  const at = parseUtcDateTime(text(form, name));
  if (!at) throw new ValidationError(`${label}: a UTC date and 24 h time, like 2026-11-01 09:30`, name);
  return at;
}

export async function replayWindowAction(_prev: ReplayResult | undefined, form: FormData): Promise<ReplayResult> {
  try {
    const destination = text(form, "destination");
    const ctx = await forwardContext();
    await requirePermission(ctx.db, ctx.actor, "forwards.replay", {
      action: "forwards.replay",
      target: `destination:${destination.slice(0, 64)}`,
    });
    const from = windowEnd(form, "from", "From");
    const to = windowEnd(form, "to", "To");
    const { resumeFrom, ...r } = await replayWindow(ctx, { destination, from, to });
    revalidatePath("/destinations");
    return {
      ok: true,
      data: { ...r, from: from.toISOString(), to: to.toISOString(), resumeFrom: resumeFrom?.toISOString() },
    };
  } catch (err) {
    return actionError(err);
  }
}
