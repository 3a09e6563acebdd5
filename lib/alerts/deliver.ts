import { sql } from "drizzle-orm";
import { rowsOf, type Db } from "@/db/client";
import type { AlertChannel } from "@/db/schema/alerts";
import { describeError } from "@/lib/errors";
import type { AlertChannels } from "./channels";
import { postJson, type PostResult } from "./http";
import { signedHeaders, slackBody, webhookBody, type NotificationPayload } from "./render";

export interface DeliverSettings {
  sendTimeoutMs: number;
  maxAttempts: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
  /** Deliveries leased and sent (at once) per pass. */
  batchSize: number;
}

export interface DeliverResult {
  sent: number;
  retrying: number;
  failed: number;
  /** Milliseconds until the next pending delivery is due, if any. */
  nextDueMs?: number;
}

interface Leased {
  id: number;
  channel: AlertChannel;
  attempts: number;
  token: string;
  notification: number;
  payload: Omit<NotificationPayload, "notification">;
}

/** Retry n waits a random time in [half, all] of base · 2^(n−1), capped. */
export function alertBackoffMs(attempt: number, s: Pick<DeliverSettings, "backoffBaseMs" | "backoffMaxMs">): number {
  const ceiling = Math.min(s.backoffMaxMs, s.backoffBaseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
}

/**
 * Leases due deliveries (pending and due, or sending with a lapsed lease: a sender that died mid-request)
 * with SKIP LOCKED, committed before any request goes out: two evaluators never send one delivery both.
 * A lapsed lease on the last attempt ends `failed`, so attempts stay bounded.
 */
async function leaseDue(db: Db, s: DeliverSettings): Promise<Leased[]> {
  await db.execute(sql`
    update alert_delivery
    set status = 'failed', lease_token = null, lease_expires_at = null,
        last_error = coalesce(last_error, 'the sender stopped during its last attempt')
    where status = 'sending' and lease_expires_at < now() and attempts >= ${s.maxAttempts}`);
  const leaseMs = s.sendTimeoutMs * 2 + 5000;
  const rows = rowsOf<Leased>(
    await db.execute(sql`
      with due as (
        select id from alert_delivery
        where status in ('pending', 'sending') and next_attempt_at <= now()
          and (status = 'pending' or lease_expires_at < now())
        order by next_attempt_at, id
        limit ${s.batchSize}
        for update skip locked
      )
      update alert_delivery d
      set status = 'sending', attempts = d.attempts + 1, lease_token = gen_random_uuid(),
          lease_expires_at = now() + make_interval(secs => ${leaseMs / 1000}::float8)
      from due, alert_notification n
      where d.id = due.id and n.id = d.notification_id
      returning d.id::int as id, d.channel, d.attempts, d.lease_token::text as token,
                n.id::int as notification, n.payload`),
  );
  return rows.map((r) => ({ ...r, id: Number(r.id), notification: Number(r.notification) }));
}

async function send(
  lease: Leased,
  channels: AlertChannels,
  s: DeliverSettings,
  signal: AbortSignal | undefined,
): Promise<PostResult> {
  const payload: NotificationPayload = { ...lease.payload, notification: lease.notification };
  const opts = { timeoutMs: s.sendTimeoutMs, signal };
  if (lease.channel === "slack") {
    if (!channels.slack) return { ok: false, error: "ALERT_SLACK_WEBHOOK_URL is no longer set", permanent: true };
    return postJson(channels.slack.url, slackBody(payload), {}, opts);
  }
  if (!channels.webhook) return { ok: false, error: "ALERT_WEBHOOK_URL is no longer set", permanent: true };
  const body = webhookBody(payload);
  // One id per delivery, the same on every retry: a receiver that saw it already can drop the repeat. The
  // notification's time keeps it unique across databases (ids restart in a fresh one).
  const messageId = `alert_${lease.id}_${Date.parse(payload.createdAt).toString(36)}`;
  const headers = signedHeaders(body, channels.webhook.secret, messageId, Math.floor(Date.now() / 1000));
  return postJson(channels.webhook.url, body, headers, opts);
}

/** Fenced on the lease token: a sender whose lease lapsed cannot overwrite the one that took over. */
async function settle(
  db: Db,
  lease: Leased,
  result: PostResult,
  s: DeliverSettings,
): Promise<"sent" | "retrying" | "failed"> {
  const outcome = result.ok ? "sent" : result.permanent || lease.attempts >= s.maxAttempts ? "failed" : "retrying";
  const waitMs = outcome === "retrying" ? alertBackoffMs(lease.attempts, s) : 0;
  await db.execute(sql`
    update alert_delivery
    set status = ${outcome === "retrying" ? "pending" : outcome},
        lease_token = null, lease_expires_at = null,
        last_status = ${result.status ?? null},
        last_error = ${result.ok ? null : (result.error ?? "failed")},
        sent_at = ${result.ok ? sql`now()` : sql`null`},
        next_attempt_at = now() + make_interval(secs => ${waitMs / 1000}::float8)
    where id = ${lease.id} and lease_token = ${lease.token}::uuid`);
  return outcome;
}

/**
 * One pass of the outbox: lease what is due, send each (at once, each bounded by the send timeout),
 * settle each. Never throws for a channel's failure: that is the delivery's retry, with backoff.
 */
export async function deliverDue(
  db: Db,
  channels: AlertChannels,
  s: DeliverSettings,
  opts: { signal?: AbortSignal; log?: (m: string) => void } = {},
): Promise<DeliverResult> {
  const out: DeliverResult = { sent: 0, retrying: 0, failed: 0 };
  const leased = await leaseDue(db, s);
  await Promise.all(
    leased.map(async (lease) => {
      let result: PostResult;
      try {
        result = await send(lease, channels, s, opts.signal);
      } catch (err) {
        result = { ok: false, error: describeError(err) };
      }
      const outcome = await settle(db, lease, result, s);
      out[outcome] += 1;
      if (!result.ok)
        opts.log?.(
          `${lease.channel} delivery ${lease.id} (attempt ${lease.attempts}/${s.maxAttempts}): ${result.error ?? "failed"}${
            outcome === "failed" ? "; giving up" : ""
          }`,
        );
    }),
  );
  const [next] = rowsOf<{ ms: number | null }>(
    await db.execute(sql`
      select (extract(epoch from min(next_attempt_at) - now()) * 1000)::float8 as ms
      from alert_delivery where status = 'pending'`),
  );
  if (next?.ms !== null && next?.ms !== undefined) out.nextDueMs = Math.max(0, Number(next.ms));
  return out;
}
