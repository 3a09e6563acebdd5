"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { requirePermission } from "@/lib/audit/audited";
import { ValidationError } from "@/lib/errors";
import {
  addSourceSecret,
  createSource,
  expireSourceSecret,
  setSourceState,
  type IssuedSecret,
} from "@/lib/sources/manage";
import { sendTestEvent } from "@/lib/sources/test-event";
import { actionError, type ActionResult } from "../../_lib/action-result";
import { receiverBaseUrl, sourcesContext } from "./_lib/context";

// Each lib verb checks the role (sources.manage: admin; sources.test: ops) and audits the call. The form
// actions check first too, so a refusal is not hidden behind a complaint about the input.

/** What a form sends back after a new secret: the plaintext once, never again. */
export type IssuedResult = ActionResult<IssuedSecret>;

export interface TestEventView {
  status: number;
  eventId: string;
  eventType: string;
  /** The receiver's answer, as text. */
  answer: string;
  link?: string;
  /** The ledger marked the stored event as a test. */
  test: boolean;
}

/** The refusal is audited under the verb's own action name, as the verb would have. */
async function manageContext(action: "sources.create" | "sources.add-secret", target: string) {
  const ctx = await sourcesContext();
  await requirePermission(ctx.db, ctx.actor, "sources.manage", { action, target });
  return ctx;
}

const text = (form: FormData, name: string) => {
  const v = form.get(name);
  return typeof v === "string" ? v.trim() : "";
};

function optionsFrom(form: FormData): Record<string, unknown> | undefined {
  const provider = text(form, "provider");
  if (provider === "standard") {
    const typePath = text(form, "typePath");
    return typePath ? { typePath } : undefined;
  }
  if (provider !== "generic") return undefined;
  const raw = text(form, "options");
  if (!raw)
    throw new ValidationError("options: the generic kind needs its scheme as JSON (see the example)", "options");
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (err) {
    throw new ValidationError(`options are not valid JSON: ${(err as Error).message}`, "options");
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    throw new ValidationError("options must be a JSON object ({ … })", "options");
  return parsed as Record<string, unknown>;
}

export async function createSourceAction(_prev: IssuedResult | undefined, form: FormData): Promise<IssuedResult> {
  try {
    const ctx = await manageContext("sources.create", "source:new");
    const tolerance = text(form, "toleranceSeconds");
    const issued = await createSource(ctx, {
      slug: text(form, "slug"),
      name: text(form, "name"),
      provider: text(form, "provider") as "stripe",
      toleranceSeconds: tolerance ? tolerance : undefined,
      options: optionsFrom(form),
      secret: text(form, "secret") || undefined,
    });
    revalidatePath("/sources");
    return { ok: true, data: issued };
  } catch (err) {
    return actionError(err);
  }
}

// The form takes 24 h UTC text, "2026-11-01 10:00" (a browser's picker follows its locale); read as UTC.
const UtcTime = z
  .string()
  .trim()
  .regex(
    /^\d{4}-\d\d-\d\d[ T]\d\d:\d\d(:\d\d)?( ?(Z|UTC))?$/i,
    "Give the old secrets' end as a UTC date and 24 h time, like 2026-11-01 10:00 (YYYY-MM-DD HH:MM)",
  )
  .transform((v) => new Date(`${v.replace(/\s*(Z|UTC)$/i, "").replace(" ", "T")}Z`))
  .refine((d) => !Number.isNaN(d.getTime()), "The old secrets' end is not a real date and time");

function retireAt(form: FormData): Date | undefined {
  switch (text(form, "retire")) {
    case "keep":
      return undefined;
    case "now":
      return new Date();
    default: {
      const at = UtcTime.safeParse(text(form, "retireAt"));
      if (!at.success) throw new ValidationError(at.error.issues[0]?.message ?? "invalid date", "retireAt");
      return at.data;
    }
  }
}

export async function rotateSecretAction(_prev: IssuedResult | undefined, form: FormData): Promise<IssuedResult> {
  try {
    const slug = text(form, "slug");
    const ctx = await manageContext("sources.add-secret", `source:${slug.slice(0, 64)}`);
    const issued = await addSourceSecret(ctx, {
      slug,
      secret: text(form, "secret") || undefined,
      retireOthersAt: retireAt(form),
    });
    revalidatePath("/sources");
    revalidatePath(`/sources/${issued.slug}`);
    return { ok: true, data: issued };
  } catch (err) {
    return actionError(err);
  }
}

export async function expireSecretAction(input: {
  slug: string;
  secretId: string;
}): Promise<ActionResult<{ expiresAt: string }>> {
  try {
    const ctx = await sourcesContext();
    const { expiresAt } = await expireSourceSecret(ctx, { slug: input.slug, secretId: input.secretId });
    revalidatePath("/sources");
    revalidatePath(`/sources/${input.slug}`);
    return { ok: true, data: { expiresAt: expiresAt.toISOString() } };
  } catch (err) {
    return actionError(err);
  }
}

export async function setSourceStateAction(input: {
  slug: string;
  state: "active" | "paused" | "disabled";
}): Promise<ActionResult<{ state: string }>> {
  try {
    const ctx = await sourcesContext();
    const result = await setSourceState(ctx, { slug: input.slug, state: input.state });
    revalidatePath("/sources");
    revalidatePath(`/sources/${input.slug}`);
    return { ok: true, data: result };
  } catch (err) {
    return actionError(err);
  }
}

export async function sendTestEventAction(input: {
  slug: string;
  type?: string;
}): Promise<ActionResult<TestEventView>> {
  try {
    const ctx = await sourcesContext();
    const r = await sendTestEvent(
      { ...ctx, baseUrl: receiverBaseUrl() },
      { slug: String(input.slug), ...(input.type === undefined ? {} : { type: String(input.type) }) },
    );
    revalidatePath("/sources");
    revalidatePath(`/sources/${r.slug}`);
    return {
      ok: true,
      data: {
        status: r.status,
        eventId: r.eventId,
        eventType: r.eventType,
        answer: typeof r.answer === "string" ? r.answer : JSON.stringify(r.answer, null, 2),
        link: r.link,
        test: r.test,
      },
    };
  } catch (err) {
    return actionError(err);
  }
}
