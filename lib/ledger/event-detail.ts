import { and, asc, count, eq } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import type { Db } from "@/db/client";
import { entityTransition, webhookAttempt, webhookDelivery, webhookEvent, type EntityTransition, type WebhookAttempt, type WebhookDelivery, type WebhookEvent } from "@/db/schema";
import { writeAudit } from "@/lib/audit";
import { authorize, type Actor } from "@/lib/auth/roles";
import { PROVIDERS, type SecretsBySource } from "@/lib/providers";
import { EventKeyInput } from "./requeue";
import { NotFoundError } from "./types";

/** How many deliveries the page lists; a duplicate storm can leave thousands (the total is still shown). */
const DELIVERY_LIMIT = 200;

export type SignatureCheck =
  | { state: "verifies" }
  | { state: "fails"; reason: string }
  | { state: "unsigned"; reason: string }
  | { state: "no-secret" };

export type LedgerEvent = Omit<WebhookEvent, "leaseToken">;

export interface EventDetail {
  event: LedgerEvent;
  signature: SignatureCheck;
  deliveries: WebhookDelivery[];
  deliveryCount: number;
  attempts: WebhookAttempt[];
  transitions: EntityTransition[];
}

/**
 * Re-checks the stored raw body and headers against the secrets configured now, ignoring the
 * timestamp window (the delivery is old by definition): "is this the payload the provider signed?"
 */
export function checkSignatureNow(event: Pick<WebhookEvent, "source" | "rawBody" | "headers" | "via">, secrets: SecretsBySource): SignatureCheck {
  const source = event.source as keyof SecretsBySource;
  const provider = PROVIDERS[source];
  if (secrets[source].length === 0) return { state: "no-secret" };
  const verdict = provider.verify({
    rawBody: Buffer.from(event.rawBody, "utf8"),
    headers: new Headers(event.headers),
    secrets: secrets[source],
    toleranceSeconds: Number.MAX_SAFE_INTEGER,
    now: Math.floor(Date.now() / 1000),
  });
  if (verdict.ok) return { state: "verifies" };
  if (event.via === "replay") return { state: "unsigned", reason: "fetched from the provider's API by a replay, not signed by a delivery" };
  return { state: "fails", reason: verdict.reason };
}

export async function getEventDetail(db: Db, actor: Actor | undefined, input: EventKeyInput, secrets: SecretsBySource): Promise<EventDetail> {
  authorize(actor, "events.read");
  const key = EventKeyInput.parse(input);
  const at = (t: { source: AnyPgColumn; eventId: AnyPgColumn }) => and(eq(t.source, key.source), eq(t.eventId, key.eventId));
  const [row] = await db.select().from(webhookEvent).where(at(webhookEvent));
  if (!row) throw new NotFoundError(`no ${key.source} event ${key.eventId}`);
  const { leaseToken: _lease, ...event } = row;
  const [deliveries, [total], attempts, transitions] = await Promise.all([
    db.select().from(webhookDelivery).where(at(webhookDelivery)).orderBy(asc(webhookDelivery.id)).limit(DELIVERY_LIMIT),
    db.select({ n: count() }).from(webhookDelivery).where(at(webhookDelivery)),
    db.select().from(webhookAttempt).where(at(webhookAttempt)).orderBy(asc(webhookAttempt.number), asc(webhookAttempt.id)),
    db.select().from(entityTransition).where(at(entityTransition)).orderBy(asc(entityTransition.id)),
  ]);
  return { event, signature: checkSignatureNow(event, secrets), deliveries, deliveryCount: Number(total?.n ?? 0), attempts, transitions };
}

/**
 * Everything the ledger knows about one event, as one document for a dispute or an audit.
 * The export itself is audited: payloads can hold personal data.
 */
export async function exportEvent(db: Db, actor: Actor | undefined, input: EventKeyInput, secrets: SecretsBySource) {
  authorize(actor, "events.read");
  const detail = await getEventDetail(db, actor, input, secrets);
  await writeAudit(db, actor, { action: "events.export", target: `event:${detail.event.source}/${detail.event.eventId}`, result: "ok" });
  return {
    exportedAt: new Date().toISOString(),
    exportedBy: actor.email,
    signatureVerifiesWithCurrentSecret: detail.signature,
    event: detail.event,
    rawBody: detail.event.rawBody,
    headers: detail.event.headers,
    deliveries: detail.deliveries,
    deliveryCount: detail.deliveryCount,
    attempts: detail.attempts,
    entityTransitions: detail.transitions,
  };
}
