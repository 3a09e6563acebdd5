import { randomUUID } from "node:crypto";
import type { Db } from "@/db/client";
import { writeAudit } from "@/lib/audit";
import { requirePermission } from "@/lib/auth/audited";
import type { Actor } from "@/lib/auth/roles";
import { ConflictError, describeError, NotFoundError } from "@/lib/errors";
import { PROVIDERS } from "@/lib/providers";
import { isPrototypeKey } from "@/lib/providers/options";
import type { ProviderKind } from "@/lib/providers/types";
import { githubIssuesOpened } from "@/lib/samples/github";
import { paddleSubscriptionEvent } from "@/lib/samples/paddle";
import { shopifyOrder } from "@/lib/samples/shopify";
import { slackEventCallback } from "@/lib/samples/slack";
import { standardEvent } from "@/lib/samples/standard";
import { stripeThinEvent } from "@/lib/samples/stripe";
import { optionsMessage } from "./declared";
import type { SourceDirectory } from "./directory";
import { activeSecrets, type ResolvedSource } from "./types";

export interface TestEventResult {
  slug: string;
  eventId: string;
  eventType: string;
  /** The receiver's answer, as the provider would have seen it. */
  status: number;
  answer: unknown;
  /** Where the event is in the console, when it was stored. */
  link?: string;
}

type Fields = Record<string, unknown>;
const fields = (): Fields => Object.create(null) as Fields;

/**
 * Sets a dot path in the sample's fields. Every object on the way has no prototype and a segment that
 * would name one is skipped, so a path saved before such paths were refused cannot write outside the sample.
 */
function setPath(target: Fields, path: string, value: unknown) {
  const keys = path.split(".");
  if (keys.some(isPrototypeKey)) return;
  let at = target;
  for (const key of keys.slice(0, -1)) {
    const next = Object.hasOwn(at, key) ? at[key] : undefined;
    at = at[key] = typeof next === "object" && next !== null && !Array.isArray(next) ? (next as Fields) : fields();
  }
  at[keys[keys.length - 1]!] = value;
}

/**
 * A realistic sample of the source's kind, of a type no built-in handler applies, so a test event is
 * stored, deduplicated and shown like any other but changes no business state.
 */
export function testEventFor(source: ResolvedSource, eventId: string, now: Date): { body: string; type: string } {
  const iso = now.toISOString();
  const kind: ProviderKind = source.provider;
  switch (kind) {
    case "stripe":
      return {
        body: JSON.stringify(stripeThinEvent({ eventId, created: iso })),
        type: "v1.billing.meter.error_report_triggered",
      };
    case "github":
      return { body: JSON.stringify(githubIssuesOpened()), type: "issues" };
    case "shopify":
      return { body: JSON.stringify(shopifyOrder({ updatedAt: iso })), type: "orders/paid" };
    case "paddle":
      return {
        body: JSON.stringify(
          paddleSubscriptionEvent({ eventId, eventType: "subscription.activated", occurredAt: iso }),
        ),
        type: "subscription.activated",
      };
    case "slack":
      return { body: JSON.stringify(slackEventCallback({ eventId })), type: "event_callback" };
    case "standard":
      return { body: JSON.stringify(standardEvent({ type: "ledger.test", timestamp: iso })), type: "ledger.test" };
    case "generic": {
      const o = source.options as {
        eventId?: { path?: string; hashOf?: string[] };
        eventType?: { path?: string };
        versionPath?: string;
        entity?: { idPath?: string; typePath?: string };
      };
      const body = Object.assign(fields(), { test: true, sent_by: "Webhook Ledger" });
      if (o.eventId?.path) setPath(body, o.eventId.path, eventId);
      for (const path of o.eventId?.hashOf ?? []) setPath(body, path, `${eventId}`);
      if (o.eventType?.path) setPath(body, o.eventType.path, "ledger.test");
      if (o.versionPath) setPath(body, o.versionPath, iso);
      if (o.entity?.idPath) setPath(body, o.entity.idPath, "test_object");
      if (o.entity?.typePath) setPath(body, o.entity.typePath, "test");
      return { body: JSON.stringify(body), type: "ledger.test" };
    }
  }
}

/**
 * Ops send a sample event through the real receiver, over HTTP, signed with the source's own newest
 * active secret: what the provider's "send test webhook" button does, from this side. No transaction is
 * held while it is posted (the receiver's claim may need the connection: PGlite has one); the audit
 * row is written after, with the answer.
 */
export async function sendTestEvent(
  ctx: { db: Db; actor: Actor | undefined; sources: SourceDirectory; baseUrl: string; timeoutMs?: number },
  input: { slug: string },
): Promise<TestEventResult> {
  const entry = { action: "sources.test-event", target: `source:${String(input.slug).slice(0, 64)}` };
  const actor = await requirePermission(ctx.db, ctx.actor, "sources.test", entry);
  const fail = async (err: Error): Promise<never> => {
    await writeAudit(ctx.db, actor, { ...entry, result: "error", error: err.message });
    throw err;
  };
  const found = await ctx.sources.find(String(input.slug));
  if (!found) return fail(new NotFoundError(`no source "${String(input.slug).slice(0, 64)}"`));
  let source: ResolvedSource;
  try {
    // A row saved under older rules keeps options that no longer parse: say so rather than sign with them.
    source = { ...found, options: PROVIDERS[found.provider].parseOptions?.(found.options) ?? found.options };
  } catch (err) {
    return fail(
      new ConflictError(`source "${found.slug}" has options that are no longer valid: ${optionsMessage(err)}`),
    );
  }
  const now = new Date();
  const secrets = activeSecrets(source, now.getTime());
  const secret = secrets[secrets.length - 1];
  if (!secret) return fail(new ConflictError(`source "${source.slug}" has no active secret to sign with`));
  const eventId =
    source.provider === "github" || source.provider === "shopify"
      ? randomUUID()
      : `evt_test_${randomUUID().replaceAll("-", "")}`;
  const sample = testEventFor(source, eventId, now);
  const headers = PROVIDERS[source.provider].sign?.({
    rawBody: sample.body,
    secret,
    now: Math.floor(now.getTime() / 1000),
    eventId,
    eventType: sample.type,
    options: source.options,
  });
  if (!headers)
    return fail(new ConflictError(`the newest secret of "${source.slug}" cannot sign (a public key verifies only)`));
  let status: number;
  let answer: unknown;
  try {
    const res = await fetch(new URL(`/api/webhooks/${encodeURIComponent(source.slug)}`, ctx.baseUrl), {
      method: "POST",
      headers,
      body: sample.body,
      signal: AbortSignal.timeout(ctx.timeoutMs ?? 10_000),
      redirect: "manual",
    });
    status = res.status;
    const text = (await res.text()).slice(0, 2000);
    try {
      answer = JSON.parse(text);
    } catch {
      answer = text;
    }
  } catch (err) {
    return fail(new Error(`the receiver did not answer: ${describeError(err)}`));
  }
  const stored = status === 200;
  const described = PROVIDERS[source.provider].describe(JSON.parse(sample.body), new Headers(headers), {
    rawText: sample.body,
    options: source.options,
  });
  const storedId = described.ok ? described.event.eventId : eventId;
  await writeAudit(ctx.db, actor, {
    ...entry,
    target: `source:${source.slug}`,
    detail: { eventId: storedId, status },
    result: stored ? "ok" : "error",
    error: stored ? undefined : `the receiver answered ${status}`,
  });
  return {
    slug: source.slug,
    eventId: storedId,
    eventType: described.ok ? described.event.eventType : sample.type,
    status,
    answer,
    link: stored ? `/events/${encodeURIComponent(source.slug)}/${encodeURIComponent(storedId)}` : undefined,
  };
}
