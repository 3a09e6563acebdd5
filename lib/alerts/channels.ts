import type { AlertChannel } from "@/db/schema/alerts";
import type { Env } from "@/lib/env";
import { unkeyedFingerprint } from "@/lib/sources/secret-box";

/** Where alerts go, from the environment. The URLs and the secret are credentials: never logged or rendered. */
export interface AlertChannels {
  slack?: { url: string };
  webhook?: { url: string; secret: string };
  /** A channel half-configured (a URL without its secret): said on the console, not guessed. */
  problems: { channel: AlertChannel; message: string }[];
}

export type ChannelsEnv = Pick<Env, "ALERT_SLACK_WEBHOOK_URL" | "ALERT_WEBHOOK_URL" | "ALERT_WEBHOOK_SECRET">;

export function alertChannelsFromEnv(env: Partial<ChannelsEnv>): AlertChannels {
  const out: AlertChannels = { problems: [] };
  if (env.ALERT_SLACK_WEBHOOK_URL) out.slack = { url: env.ALERT_SLACK_WEBHOOK_URL };
  if (env.ALERT_WEBHOOK_URL && env.ALERT_WEBHOOK_SECRET)
    out.webhook = { url: env.ALERT_WEBHOOK_URL, secret: env.ALERT_WEBHOOK_SECRET };
  else if (env.ALERT_WEBHOOK_URL)
    out.problems.push({
      channel: "webhook",
      message: "ALERT_WEBHOOK_URL is set without ALERT_WEBHOOK_SECRET: nothing is sent there until both are set",
    });
  else if (env.ALERT_WEBHOOK_SECRET)
    out.problems.push({ channel: "webhook", message: "ALERT_WEBHOOK_SECRET is set without ALERT_WEBHOOK_URL" });
  return out;
}

export function configuredChannels(channels: AlertChannels): AlertChannel[] {
  return [...(channels.slack ? (["slack"] as const) : []), ...(channels.webhook ? (["webhook"] as const) : [])];
}

/**
 * A URL with its credentials hidden: scheme and host, then only the path's last four characters
 * (a Slack webhook's path is its token).
 */
export function maskUrl(raw: string): string {
  try {
    const url = new URL(raw);
    const rest = `${url.pathname}${url.search}`.replace(/^\/$/, "");
    const tail = rest.length > 12 ? `/…${rest.slice(-4)}` : rest ? "/…" : "";
    return `${url.protocol}//${url.host}${tail}`;
  } catch {
    return "(not a URL)";
  }
}

/** A channel as the console shows it: masked, read-only, with the variables that configure it. */
export interface ChannelView {
  channel: AlertChannel;
  label: string;
  variables: string[];
  configured: boolean;
  target?: string;
  secretFingerprint?: string;
  problem?: string;
}

export function describeChannels(channels: AlertChannels): ChannelView[] {
  const problem = (c: AlertChannel) => channels.problems.find((p) => p.channel === c)?.message;
  return [
    {
      channel: "slack",
      label: "Slack incoming webhook",
      variables: ["ALERT_SLACK_WEBHOOK_URL"],
      configured: Boolean(channels.slack),
      target: channels.slack && maskUrl(channels.slack.url),
      problem: problem("slack"),
    },
    {
      channel: "webhook",
      label: "Webhook (Standard Webhooks signature)",
      variables: ["ALERT_WEBHOOK_URL", "ALERT_WEBHOOK_SECRET"],
      configured: Boolean(channels.webhook),
      target: channels.webhook && maskUrl(channels.webhook.url),
      secretFingerprint: channels.webhook && unkeyedFingerprint(channels.webhook.secret),
      problem: problem("webhook"),
    },
  ];
}
