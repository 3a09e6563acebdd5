import { randomUUID } from "node:crypto";
import { writeAudit } from "@/lib/audit/write";
import { requirePermission } from "@/lib/audit/audited";
import { ConflictError, describeError, NotFoundError, parseInput } from "@/lib/errors";
import { destinationSecrets, listDestinations } from "./destinations";
import type { ForwardContext } from "./manage";
import { DestinationName } from "./manage";
import { forwardId, standardMessage, type ForwardedEvent } from "./message";
import { sendForward } from "./send";

export interface TestDeliveryResult {
  name: string;
  ok: boolean;
  /** The destination's HTTP status; absent when it never answered. */
  status?: number;
  durationMs: number;
  /** The first bytes of its answer, as text (attacker-controlled: shown as text only). */
  excerpt?: string;
  error?: string;
  webhookId: string;
}

/** The synthetic event a test delivery carries: the documented envelope, of a type no real event has. */
export function testDeliveryEvent(destination: string, now: Date): ForwardedEvent {
  return {
    destination,
    source: "ledger",
    eventId: `test_${randomUUID().replaceAll("-", "")}`,
    eventType: "ledger.test",
    receivedAt: now,
    entity: null,
    rawBody: JSON.stringify({ test: true, message: "A test delivery from Webhook Ledger", sentAt: now.toISOString() }),
    headers: {},
  };
}

/**
 * Ops send one signed `ledger.test` envelope to a destination, a real request through the forwarder's own
 * sender (its address rules, timeout and answer bounds), whatever its state, so a paused one can be checked
 * before it is resumed. Nothing is written to the outbox; the audit row says how it was answered.
 */
export async function sendTestDelivery(ctx: ForwardContext, input: { name: string }): Promise<TestDeliveryResult> {
  const entry = { action: "destinations.test", target: `destination:${String(input.name ?? "").slice(0, 64)}` };
  const actor = await requirePermission(ctx.db, ctx.actor, "destinations.test", entry);
  const fail = async (err: Error): Promise<never> => {
    await writeAudit(ctx.db, actor, { ...entry, result: "error", error: err.message });
    throw err;
  };
  let name: string;
  try {
    name = parseInput(DestinationName, input.name);
  } catch (err) {
    return fail(err as Error);
  }
  const d = (await listDestinations(ctx.db)).find((x) => x.name === name);
  if (!d) return fail(new NotFoundError(`no destination "${name}"`));
  let secrets: string[];
  try {
    secrets = await destinationSecrets(ctx.db, d, { envVar: ctx.envVar, box: ctx.box });
  } catch (err) {
    return fail(new ConflictError(`destination "${name}" cannot sign: ${describeError(err)}`));
  }
  if (secrets.length === 0) return fail(new ConflictError(`destination "${name}" has no secret to sign with`));
  const now = new Date();
  const event = testDeliveryEvent(name, now);
  const message = standardMessage(event, secrets, now);
  const r = await sendForward({
    url: d.url,
    headers: message.headers,
    body: message.body,
    timeoutMs: d.timeoutMs,
    allowPrivate: ctx.allowPrivate,
  });
  await writeAudit(ctx.db, actor, {
    ...entry,
    target: `destination:${name}`,
    detail: { status: r.status ?? null, durationMs: r.durationMs },
    result: r.ok ? "ok" : "error",
    error: r.ok ? undefined : r.error,
  });
  return {
    name,
    ok: r.ok,
    status: r.status,
    durationMs: r.durationMs,
    excerpt: r.excerpt,
    error: r.error,
    webhookId: forwardId(event),
  };
}
