import { and, eq, inArray, sql } from "drizzle-orm";
import { rowsOf, type Db, type Tx } from "@/db/client";
import { pgArray } from "@/db/pg-array";
import {
  alertDelivery,
  alertIncident,
  alertNotification,
  alertRule,
  type AlertChannel,
  type AlertRule,
  type NotificationKind,
} from "@/db/schema/alerts";
import {
  backlogOutcome,
  deadEventOutcome,
  refusalOutcome,
  silenceOutcome,
  destinationOutcome,
  type ListedSource,
  type RuleOutcome,
} from "./conditions";
import {
  LISTED_INCIDENTS,
  notificationSummary,
  ruleLabel,
  type IncidentBrief,
  type NotificationPayload,
} from "./render";
import { effectiveRules, RULE_ORDER, type EffectiveRule } from "./rules";

// Namespace of the evaluation's advisory lock (two-key form, apart from lib/audit/write.ts's 73126041).
const LOCK_SPACE = 73126043;

export interface EvaluateInput {
  defaults: Record<AlertRule, EffectiveRule>;
  /** The channels configured now: each new notification gets one delivery per channel. */
  channels: readonly AlertChannel[];
  sources: readonly ListedSource[];
  evaluatorId: string;
  /** APP_URL: messages link to the console's pages. */
  consoleUrl?: string;
  /** Incidents opened (and resolved) per rule and evaluation, at most: a pile of dead events takes a few ticks. */
  cap?: number;
  /**
   * A backlog, refusal or silence condition resolves once it has stayed clear this long (0: at the first
   * evaluation that finds it clear). A dead event resolves as soon as it moves on: it does not hover.
   */
  resolveAfterMs?: number;
}

export interface EvaluateResult {
  /** false: another evaluator held the lock, and this one changed nothing. */
  evaluated: boolean;
  opened: number;
  resolved: number;
  notifications: number;
}

type Opened = typeof alertIncident.$inferSelect;

function linkOf(base: string | undefined, i: Pick<Opened, "rule" | "source" | "eventId">): string | undefined {
  if (!base) return undefined;
  const root = base.replace(/\/+$/, "");
  if (i.rule === "dead_event" && i.source && i.eventId)
    return `${root}/events/${encodeURIComponent(i.source)}/${encodeURIComponent(i.eventId)}`;
  if (i.source) return `${root}/sources/${encodeURIComponent(i.source)}`;
  if (i.rule === "destination_failing") return `${root}/destinations`;
  return `${root}/`;
}

function brief(i: Opened, base: string | undefined): IncidentBrief {
  return {
    id: i.id,
    subject: i.subject,
    summary: i.summary,
    openedAt: i.openedAt.toISOString(),
    ...(i.resolvedAt ? { resolvedAt: i.resolvedAt.toISOString() } : {}),
    ...(i.resolution ? { resolution: i.resolution } : {}),
    ...(i.source ? { source: i.source } : {}),
    ...(i.eventId ? { eventId: i.eventId } : {}),
    ...(linkOf(base, i) ? { link: linkOf(base, i) } : {}),
  };
}

async function outcomeOf(tx: Tx, rule: EffectiveRule, input: EvaluateInput): Promise<RuleOutcome> {
  const cap = input.cap ?? 1000;
  const t = rule.threshold ?? 1;
  const after = input.resolveAfterMs ?? 0;
  switch (rule.rule) {
    case "dead_event":
      return deadEventOutcome(tx, cap);
    case "backlog_age":
      return backlogOutcome(tx, t, after);
    case "refusal_rate":
      return refusalOutcome(tx, t, after);
    case "source_silent":
      return silenceOutcome(tx, t, input.sources, after);
    case "destination_failing":
      return destinationOutcome(tx, after);
  }
}

async function resolveIncidents(tx: Tx, resolve: RuleOutcome["resolve"]): Promise<Opened[]> {
  if (resolve.length === 0) return [];
  const ids = rowsOf<{ id: number }>(
    await tx.execute(sql`
      update alert_incident i
      set state = 'resolved', resolved_at = now(), resolution = v.resolution
      from unnest(${pgArray(
        resolve.map((r) => r.id),
        "bigint",
      )}, ${pgArray(
        resolve.map((r) => r.resolution),
        "text",
      )}) as v(id, resolution)
      where i.id = v.id and i.state = 'firing'
      returning i.id::int as id`),
  ).map((r) => Number(r.id));
  if (ids.length === 0) return [];
  return tx.select().from(alertIncident).where(inArray(alertIncident.id, ids));
}

/** One message about `incidents` (opened or resolved together), and its deliveries: one per channel. */
async function notify(
  tx: Tx,
  rule: EffectiveRule,
  kind: NotificationKind,
  incidents: Opened[],
  input: EvaluateInput,
): Promise<void> {
  if (incidents.length === 0) return;
  const sorted = [...incidents].sort((a, b) => a.id - b.id);
  const first = sorted[0];
  const summary = notificationSummary(rule.rule, kind, rule.threshold, first, sorted.length);
  const payload: Omit<NotificationPayload, "notification"> = {
    rule: rule.rule,
    ruleLabel: ruleLabel(rule.rule),
    kind,
    summary,
    threshold: rule.threshold,
    count: sorted.length,
    incidents: sorted.slice(0, LISTED_INCIDENTS).map((i) => brief(i, input.consoleUrl)),
    createdAt: new Date().toISOString(),
    ...(input.consoleUrl ? { consoleUrl: `${input.consoleUrl.replace(/\/+$/, "")}/alerts` } : {}),
  };
  const [row] = await tx
    .insert(alertNotification)
    .values({ rule: rule.rule, kind, summary, incidentIds: sorted.map((i) => i.id), payload })
    .returning({ id: alertNotification.id });
  if (!row || input.channels.length === 0) return;
  await tx.insert(alertDelivery).values(input.channels.map((channel) => ({ notificationId: row.id, channel })));
}

/**
 * One evaluation, in one transaction under an advisory lock (a second evaluator skips it, and even without
 * the lock the firing index lets an incident open only once): open an incident per condition that started
 * to hold, resolve those that stopped, and queue one grouped message per rule and kind for the channels.
 * Nothing is sent here: the outbox (lib/alerts/deliver.ts) does that outside any transaction.
 */
export async function evaluateAlerts(db: Db, input: EvaluateInput): Promise<EvaluateResult> {
  return db.transaction(async (tx) => {
    const [lock] = rowsOf<{ ok: boolean }>(
      await tx.execute(sql`select pg_try_advisory_xact_lock(${LOCK_SPACE}::int, 1) as ok`),
    );
    const result: EvaluateResult = { evaluated: false, opened: 0, resolved: 0, notifications: 0 };
    if (!lock?.ok) return result;
    result.evaluated = true;
    const rules = effectiveRules(input.defaults, await tx.select().from(alertRule));
    for (const name of RULE_ORDER) {
      const rule = rules[name];
      if (!rule.enabled) {
        // Turned off: its incidents close without a message (nobody asked to hear about this rule now).
        await tx
          .update(alertIncident)
          .set({ state: "resolved", resolvedAt: sql`now()`, resolution: "the rule was turned off" })
          .where(and(eq(alertIncident.rule, name), eq(alertIncident.state, "firing")));
        continue;
      }
      const outcome = await outcomeOf(tx, rule, input);
      const opened =
        outcome.open.length === 0
          ? []
          : await tx
              .insert(alertIncident)
              .values(outcome.open.map((c) => ({ rule: name, ...c })))
              .onConflictDoNothing()
              .returning();
      const resolved = await resolveIncidents(tx, outcome.resolve);
      await notify(tx, rule, "firing", opened, input);
      await notify(tx, rule, "resolved", resolved, input);
      result.opened += opened.length;
      result.resolved += resolved.length;
      result.notifications += (opened.length > 0 ? 1 : 0) + (resolved.length > 0 ? 1 : 0);
    }
    await tx.execute(sql`
      insert into alert_evaluator (id, last_run_at, last_run_by, last_error)
      values (1, now(), ${input.evaluatorId}, null)
      on conflict (id) do update set last_run_at = now(), last_run_by = excluded.last_run_by, last_error = null`);
    return result;
  });
}

/** Best effort, outside the failed transaction: the console says the evaluation is failing and why. */
export async function recordEvaluationError(db: Db, evaluatorId: string, error: string): Promise<void> {
  await db.execute(sql`
    insert into alert_evaluator (id, last_run_at, last_run_by, last_error)
    values (1, now(), ${evaluatorId}, ${error.slice(0, 500)})
    on conflict (id) do update set last_run_at = now(), last_run_by = excluded.last_run_by,
                                   last_error = excluded.last_error`);
}
