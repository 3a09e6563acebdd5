import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { rowsOf, type Db } from "@/db/client";
import { writeAudit } from "@/lib/audit/write";
import { requirePermission } from "@/lib/audit/audited";
import type { Actor } from "@/lib/roles";
import { ConflictError, describeError, NotFoundError, ValidationError } from "@/lib/errors";
import { PROVIDERS } from "@/lib/providers";
import { optionsMessage } from "./declared";
import type { SourceDirectory } from "./directory";
import { testEventFor, testEventTypes } from "./test-samples";
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
  /** The ledger marked it as a test (the receiver read the marker from its signed body). */
  test: boolean;
}

/**
 * Ops send a sample event through the real receiver, over HTTP, signed with the source's own newest
 * active secret: what the provider's "send test webhook" button does, from this side. No transaction is
 * held while it is posted (the receiver's claim may need the connection: PGlite has one); the audit
 * row is written after, with the answer.
 */
export async function sendTestEvent(
  ctx: { db: Db; actor: Actor | undefined; sources: SourceDirectory; baseUrl: string; timeoutMs?: number },
  input: { slug: string; type?: string },
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
  const types = testEventTypes(source.provider);
  const type = input.type === undefined || input.type === "" ? types[0]! : String(input.type);
  if (!types.includes(type))
    return fail(
      new ValidationError(
        `a test event for a ${source.provider} source is one of ${types.join(", ")}; not "${type.slice(0, 64)}"`,
        "type",
      ),
    );
  const now = new Date();
  const secrets = activeSecrets(source, now.getTime());
  const secret = secrets[secrets.length - 1];
  if (!secret) return fail(new ConflictError(`source "${source.slug}" has no active secret to sign with`));
  const eventId =
    source.provider === "github" || source.provider === "shopify"
      ? randomUUID()
      : `evt_test_${randomUUID().replaceAll("-", "")}`;
  const sample = testEventFor(source, eventId, now, type);
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
  // Read back, not assumed: the receiver decides from the signed body whether the ledger marks it a test.
  const [row] = stored
    ? rowsOf<{ test: boolean }>(
        await ctx.db.execute(
          sql`select test from webhook_event_body where source = ${source.slug} and event_id = ${storedId}`,
        ),
      )
    : [];
  await writeAudit(ctx.db, actor, {
    ...entry,
    target: `source:${source.slug}`,
    detail: { eventId: storedId, eventType: sample.type, status },
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
    test: row?.test === true,
  };
}
