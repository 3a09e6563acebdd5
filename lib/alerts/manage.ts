import { eq } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "@/db/client";
import { ALERT_RULES, alertRule } from "@/db/schema/alerts";
import { audited } from "@/lib/audit/audited";
import type { Actor } from "@/lib/roles";
import { parseInput, ValidationError } from "@/lib/errors";
import { RULE_DEFINITIONS } from "./rules";

export const SetAlertRuleInput = z.object({
  rule: z.enum(ALERT_RULES, { error: "Choose a rule" }),
  enabled: z.boolean(),
  /** Ignored for a rule without a threshold (dead events). */
  threshold: z.coerce
    .number({ error: "The threshold is a whole number" })
    .int("The threshold is a whole number")
    .optional(),
});
export type SetAlertRuleInput = z.input<typeof SetAlertRuleInput>;

export const ResetAlertRuleInput = z.object({ rule: z.enum(ALERT_RULES, { error: "Choose a rule" }) });
export type ResetAlertRuleInput = z.input<typeof ResetAlertRuleInput>;

/** Turns a rule on or off and sets its threshold; the console's setting wins over the deploy's default. */
export async function setAlertRule({
  db,
  actor,
  input,
}: {
  db: Db;
  actor: Actor | undefined;
  input: SetAlertRuleInput;
}): Promise<{ rule: string; enabled: boolean; threshold: number | null }> {
  const entry = { action: "alerts.set-rule", target: `alert-rule:${String(input.rule ?? "")}` };
  return audited(db, actor, "alerts.manage", entry, async (tx, who, current) => {
    const i = parseInput(SetAlertRuleInput, input);
    const def = RULE_DEFINITIONS[i.rule];
    let threshold: number | null = null;
    if (def.unit) {
      if (i.threshold === undefined) throw new ValidationError(`Give a threshold in ${def.unit}`, "threshold");
      if (i.threshold < (def.min ?? 1) || i.threshold > (def.max ?? Number.MAX_SAFE_INTEGER))
        throw new ValidationError(
          `The threshold is between ${def.min} and ${def.max?.toLocaleString("en")} ${def.unit}`,
          "threshold",
        );
      threshold = i.threshold;
    }
    const [before] = await tx.select().from(alertRule).where(eq(alertRule.rule, i.rule));
    await tx
      .insert(alertRule)
      .values({ rule: i.rule, enabled: i.enabled, threshold, updatedBy: who.email })
      .onConflictDoUpdate({
        target: alertRule.rule,
        set: { enabled: i.enabled, threshold, updatedBy: who.email, updatedAt: new Date() },
      });
    current.detail = {
      enabled: i.enabled,
      threshold,
      before: before ? { enabled: before.enabled, threshold: before.threshold } : "deploy default",
    };
    return { rule: i.rule, enabled: i.enabled, threshold };
  });
}

/** Forgets the console's setting: the rule follows the deploy's default (the environment) again. */
export async function resetAlertRule({
  db,
  actor,
  input,
}: {
  db: Db;
  actor: Actor | undefined;
  input: ResetAlertRuleInput;
}): Promise<{ rule: string }> {
  const entry = { action: "alerts.reset-rule", target: `alert-rule:${String(input.rule ?? "")}` };
  return audited(db, actor, "alerts.manage", entry, async (tx, _who, current) => {
    const i = parseInput(ResetAlertRuleInput, input);
    const removed = await tx.delete(alertRule).where(eq(alertRule.rule, i.rule)).returning();
    current.detail = { had: removed[0] ? { enabled: removed[0].enabled, threshold: removed[0].threshold } : null };
    return { rule: i.rule };
  });
}
