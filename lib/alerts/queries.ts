import { desc, eq, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import {
  alertDelivery,
  alertEvaluator,
  alertIncident,
  alertNotification,
  alertRule,
  type AlertChannel,
  type AlertDeliveryStatus,
  type AlertRule,
  type IncidentState,
  type NotificationKind,
} from "@/db/schema/alerts";
import { listLimit, type ListArgs } from "@/lib/auth/list-args";
import { authorize, type Actor } from "@/lib/roles";
import { describeChannels, type AlertChannels, type ChannelView } from "./channels";
import { effectiveRules, RULE_DEFINITIONS, RULE_ORDER, type EffectiveRule, type RuleDefinition } from "./rules";
import { alertConfigFromEnv } from "./from-env";

export interface AlertsConfig {
  channels: AlertChannels;
  defaults: Record<AlertRule, EffectiveRule>;
  evaluateMs: number;
}

export interface RuleView extends EffectiveRule {
  definition: Omit<RuleDefinition, "describe">;
  description: string;
  /** The deploy's default, for "use the deploy's default". */
  fallback: EffectiveRule;
  firing: number;
}

export interface AlertsOverview {
  rules: RuleView[];
  channels: ChannelView[];
  evaluator: { lastRunAt: Date | null; lastRunBy: string | null; lastError: string | null; evaluateMs: number };
}

/** Rules (effective, with where each comes from), the channels masked, and how the evaluator is doing. */
export async function getAlertsOverview({
  db,
  actor,
  config = alertConfigFromEnv(),
}: {
  db: Db;
  actor: Actor | undefined;
  config?: AlertsConfig;
}): Promise<AlertsOverview> {
  authorize(actor, "alerts.read");
  const [rows, firing, [state]] = await Promise.all([
    db.select().from(alertRule),
    db
      .select({ rule: alertIncident.rule, n: sql<number>`count(*)::int` })
      .from(alertIncident)
      .where(eq(alertIncident.state, "firing"))
      .groupBy(alertIncident.rule),
    db.select().from(alertEvaluator).where(eq(alertEvaluator.id, 1)),
  ]);
  const rules = effectiveRules(config.defaults, rows);
  return {
    rules: RULE_ORDER.map((name) => {
      const { describe, ...definition } = RULE_DEFINITIONS[name];
      return {
        ...rules[name],
        definition,
        description: describe(rules[name].threshold),
        fallback: config.defaults[name],
        firing: Number(firing.find((f) => f.rule === name)?.n ?? 0),
      };
    }),
    channels: describeChannels(config.channels),
    evaluator: {
      lastRunAt: state?.lastRunAt ?? null,
      lastRunBy: state?.lastRunBy ?? null,
      lastError: state?.lastError ?? null,
      evaluateMs: config.evaluateMs,
    },
  };
}

export interface IncidentRow {
  id: number;
  rule: AlertRule;
  subject: string;
  state: IncidentState;
  summary: string;
  openedAt: Date;
  /** Firing, but clear since then: it resolves if it stays clear for ALERT_RESOLVE_AFTER_MINUTES. */
  clearSince: Date | null;
  resolvedAt: Date | null;
  resolution: string | null;
}

/** Newest first: firing and resolved incidents. */
export async function listAlertIncidents({ db, actor, limit }: ListArgs): Promise<IncidentRow[]> {
  authorize(actor, "alerts.read");
  return db
    .select({
      id: alertIncident.id,
      rule: alertIncident.rule,
      subject: alertIncident.subject,
      state: alertIncident.state,
      summary: alertIncident.summary,
      openedAt: alertIncident.openedAt,
      clearSince: alertIncident.clearSince,
      resolvedAt: alertIncident.resolvedAt,
      resolution: alertIncident.resolution,
    })
    .from(alertIncident)
    .orderBy(desc(alertIncident.id))
    .limit(listLimit(limit));
}

export interface DeliveryRow {
  id: number;
  channel: AlertChannel;
  status: AlertDeliveryStatus;
  attempts: number;
  nextAttemptAt: Date;
  lastStatus: number | null;
  lastError: string | null;
  createdAt: Date;
  sentAt: Date | null;
  kind: NotificationKind;
  rule: AlertRule;
  summary: string;
}

/** Newest first: each message to each channel, how it went, and when it is tried again. */
export async function listAlertDeliveries({ db, actor, limit }: ListArgs): Promise<DeliveryRow[]> {
  authorize(actor, "alerts.read");
  return db
    .select({
      id: alertDelivery.id,
      channel: alertDelivery.channel,
      status: alertDelivery.status,
      attempts: alertDelivery.attempts,
      nextAttemptAt: alertDelivery.nextAttemptAt,
      lastStatus: alertDelivery.lastStatus,
      lastError: alertDelivery.lastError,
      createdAt: alertDelivery.createdAt,
      sentAt: alertDelivery.sentAt,
      kind: alertNotification.kind,
      rule: alertNotification.rule,
      summary: alertNotification.summary,
    })
    .from(alertDelivery)
    .innerJoin(alertNotification, eq(alertNotification.id, alertDelivery.notificationId))
    .orderBy(desc(alertDelivery.id))
    .limit(listLimit(limit));
}
