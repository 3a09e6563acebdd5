import type { AlertRule, AlertRuleRow } from "@/db/schema/alerts";

/** What a rule is and what its threshold counts, as the console and the messages say it. */
export interface RuleDefinition {
  rule: AlertRule;
  label: string;
  /** The threshold's unit ("minutes"), or undefined for a rule without one. */
  unit?: string;
  min?: number;
  max?: number;
  /** Shown in the console when a rule with no threshold configured is turned on. */
  suggested?: number;
  describe: (threshold: number | null) => string;
}

export const RULE_DEFINITIONS: Record<AlertRule, RuleDefinition> = {
  dead_event: {
    rule: "dead_event",
    label: "An event went dead",
    describe: () => "an event used up its attempts and waits for a person",
  },
  backlog_age: {
    rule: "backlog_age",
    label: "Backlog older than",
    unit: "minutes",
    min: 1,
    max: 7 * 24 * 60,
    suggested: 15,
    describe: (n) => `the oldest claimed or failed event has been due for more than ${n ?? "N"} minutes`,
  },
  refusal_rate: {
    rule: "refusal_rate",
    label: "Refused deliveries above",
    unit: "per 10 minutes",
    min: 1,
    max: 1_000_000,
    suggested: 50,
    describe: (n) => `a source refused more than ${n ?? "N"} deliveries in the last 10 minutes`,
  },
  source_silent: {
    rule: "source_silent",
    label: "Source silent for",
    unit: "hours",
    min: 1,
    max: 30 * 24,
    suggested: 6,
    describe: (n) => `an active source has had no delivery for more than ${n ?? "N"} hours`,
  },
  destination_failing: {
    rule: "destination_failing",
    label: "A destination keeps failing",
    describe: () => "a destination's forwards failed so often in a row that its breaker paused it",
  },
};

/** The order the console lists them in. */
export const RULE_ORDER: readonly AlertRule[] = [
  "dead_event",
  "backlog_age",
  "refusal_rate",
  "source_silent",
  "destination_failing",
];

/** A rule as it applies now: the console's row if there is one, else the deploy's default. */
export interface EffectiveRule {
  rule: AlertRule;
  enabled: boolean;
  threshold: number | null;
  origin: { kind: "default" } | { kind: "console"; by: string; at: Date };
}

/** Rules as a test (or a caller) turns them on, before any console row: a threshold turns its rule on. */
export interface RuleDefaults {
  ALERT_DEAD_EVENTS?: "on" | "off";
  ALERT_BACKLOG_MINUTES?: number;
  ALERT_REFUSALS_PER_10_MINUTES?: number;
  ALERT_SILENT_HOURS?: number;
}

/**
 * The rules before anyone changes them in the console: an event gone dead and a failing destination alert;
 * the threshold rules are off until a person turns them on with a threshold. The console is a channel itself:
 * incidents open there whether or not a Slack or webhook channel is set, and only those receive messages.
 */
export function defaultRules(given: RuleDefaults = {}): Record<AlertRule, EffectiveRule> {
  const byThreshold = (rule: AlertRule, value: number | undefined): EffectiveRule => ({
    rule,
    enabled: value !== undefined,
    threshold: value ?? RULE_DEFINITIONS[rule].suggested ?? null,
    origin: { kind: "default" },
  });
  return {
    dead_event: {
      rule: "dead_event",
      enabled: given.ALERT_DEAD_EVENTS !== "off",
      threshold: null,
      origin: { kind: "default" },
    },
    backlog_age: byThreshold("backlog_age", given.ALERT_BACKLOG_MINUTES),
    refusal_rate: byThreshold("refusal_rate", given.ALERT_REFUSALS_PER_10_MINUTES),
    source_silent: byThreshold("source_silent", given.ALERT_SILENT_HOURS),
    destination_failing: { rule: "destination_failing", enabled: true, threshold: null, origin: { kind: "default" } },
  };
}

export function effectiveRules(
  defaults: Record<AlertRule, EffectiveRule>,
  rows: readonly AlertRuleRow[],
): Record<AlertRule, EffectiveRule> {
  const out = { ...defaults };
  for (const row of rows) {
    if (!(row.rule in RULE_DEFINITIONS)) continue;
    out[row.rule] = {
      rule: row.rule,
      enabled: row.enabled,
      threshold: RULE_DEFINITIONS[row.rule].unit ? (row.threshold ?? defaults[row.rule].threshold) : null,
      origin: { kind: "console", by: row.updatedBy, at: row.updatedAt },
    };
  }
  return out;
}
