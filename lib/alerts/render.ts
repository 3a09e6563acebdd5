import type { AlertRule, NotificationKind } from "@/db/schema/alerts";
import { standard } from "@/lib/providers/standard";
import { RULE_DEFINITIONS } from "./rules";

/** Incidents listed by name in one message; the rest are counted. */
export const LISTED_INCIDENTS = 10;

/** One incident as a message lists it. */
export interface IncidentBrief {
  id: number;
  subject: string;
  summary: string;
  openedAt: string;
  resolvedAt?: string;
  resolution?: string;
  source?: string;
  eventId?: string;
  /** The console page about it, when APP_URL is set. */
  link?: string;
}

/** What every channel renders: stored on the notification row, so a retry sends the same message. */
export interface NotificationPayload {
  notification: number;
  rule: AlertRule;
  ruleLabel: string;
  kind: NotificationKind;
  summary: string;
  threshold: number | null;
  /** Incidents this message is about; `incidents` lists the first LISTED_INCIDENTS. */
  count: number;
  incidents: IncidentBrief[];
  createdAt: string;
  consoleUrl?: string;
}

const plural = (n: number, one: string, many: string) => `${n.toLocaleString("en")} ${n === 1 ? one : many}`;

/** The headline of one message about `count` incidents of a rule. */
export function notificationSummary(
  rule: AlertRule,
  kind: NotificationKind,
  threshold: number | null,
  first: { summary: string; resolution?: string | null } | undefined,
  count: number,
): string {
  if (count === 1 && first) return kind === "firing" ? first.summary : `Resolved: ${first.resolution ?? first.summary}`;
  if (kind === "resolved") {
    const what: Record<AlertRule, string> = {
      dead_event: plural(count, "dead event is", "dead events are") + " no longer dead",
      backlog_age: "the backlog is back under its threshold",
      refusal_rate: plural(count, "source is", "sources are") + " back under the refusal threshold",
      source_silent: plural(count, "silent source has", "silent sources have") + " received deliveries again",
      destination_failing: plural(count, "destination is", "destinations are") + " answering again",
    };
    return `Resolved: ${what[rule]}`;
  }
  const what: Record<AlertRule, string> = {
    dead_event: `${plural(count, "event", "events")} went dead`,
    backlog_age: `the backlog's oldest event has been due for more than ${threshold} minutes`,
    refusal_rate: `${plural(count, "source", "sources")} refused more than ${threshold} deliveries in 10 minutes`,
    source_silent: `${plural(count, "source has", "sources have")} had no delivery for more than ${threshold} hours`,
    destination_failing: `${plural(count, "destination keeps", "destinations keep")} failing: forwards paused`,
  };
  return what[rule];
}

/** Slack's mrkdwn control characters; also what keeps a provider's id from becoming <!channel> or a link. */
export function slackEscape(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** A Slack incoming webhook's body: `text` (notifications, fallbacks) and blocks. */
export function slackBody(p: NotificationPayload): string {
  const mark = p.kind === "firing" ? ":rotating_light:" : ":white_check_mark:";
  const text = `${mark} ${clip(p.summary, 300)}`;
  const lines = p.incidents.map((i) => {
    const line = slackEscape(clip(p.kind === "firing" ? i.summary : (i.resolution ?? i.summary), 200));
    return i.link ? `• <${i.link}|${slackEscape(clip(i.subject, 80))}>: ${line}` : `• ${line}`;
  });
  const more = p.count - p.incidents.length;
  if (more > 0) lines.push(`…and ${more.toLocaleString("en")} more`);
  const rule = RULE_DEFINITIONS[p.rule]?.describe(p.threshold) ?? p.ruleLabel;
  const context = `${p.kind === "firing" ? "Firing" : "Resolved"} · rule: ${slackEscape(rule)}${
    p.consoleUrl ? ` · <${p.consoleUrl}|open the console>` : ""
  }`;
  return JSON.stringify({
    text: slackEscape(text),
    blocks: [
      { type: "section", text: { type: "mrkdwn", text: `*${slackEscape(clip(p.summary, 300))}*` } },
      ...(p.count > 1 || p.incidents[0]?.link
        ? [{ type: "section", text: { type: "mrkdwn", text: clip(lines.join("\n"), 2900) } }]
        : []),
      { type: "context", elements: [{ type: "mrkdwn", text: context }] },
    ],
  });
}

/** The generic channel's body, in the Standard Webhooks shape: type, timestamp, data. */
export function webhookBody(p: NotificationPayload): string {
  return JSON.stringify({
    type: p.kind === "firing" ? "alert.firing" : "alert.resolved",
    timestamp: p.createdAt,
    data: {
      notification: p.notification,
      rule: p.rule,
      ruleLabel: p.ruleLabel,
      summary: p.summary,
      threshold: p.threshold,
      count: p.count,
      incident: p.incidents[0] ?? null,
      incidents: p.incidents,
      consoleUrl: p.consoleUrl ?? null,
    },
  });
}

/**
 * Standard Webhooks headers: webhook-id (the same on every retry of one delivery, so receivers dedupe),
 * webhook-timestamp (now) and `v1,<base64 HMAC-SHA256 of id.timestamp.body>` keyed by the whsec_ secret.
 */
export function signedHeaders(body: string, secret: string, messageId: string, nowSeconds: number) {
  const headers = standard.sign?.({ rawBody: body, secret, now: nowSeconds, eventId: messageId, eventType: "" });
  if (!headers) throw new Error("ALERT_WEBHOOK_SECRET cannot sign (want whsec_<base64>)");
  return headers;
}

export function ruleLabel(rule: AlertRule): string {
  return RULE_DEFINITIONS[rule].label;
}
