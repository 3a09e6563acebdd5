import { and, asc, desc, eq, getViewSelectedFields, sql } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import type { Db } from "@/db/client";
import {
  entityTransition,
  webhookAttempt,
  webhookDelivery,
  webhookEvent,
  type EntityTransition,
  type WebhookAttempt,
  type WebhookDelivery,
  type WebhookEvent,
} from "@/db/schema";
import { writeAudit } from "@/lib/audit/write";
import { authorize, type Actor } from "@/lib/roles";
import { PROVIDERS } from "@/lib/providers";
import { isProviderKind } from "@/lib/providers/types";
import type { ResolvedSource } from "@/lib/sources/types";
import { arrivalsSql } from "@/db/delivery-arrivals";
import { payloadSql } from "@/db/payload";
import { nestingExceeds } from "@/lib/intake/json";
import { EventKeyInput } from "./requeue";
import { NotFoundError } from "@/lib/ledger/types";
import { wouldHaveSet, type WouldHaveSet } from "./would-have-set";

/**
 * How many deliveries the page lists: the claim keeps an event's first and latest few (lib/intake/claim.ts), but
 * rows from before it did may number thousands. The first and the latest are listed; the total counts every one.
 */
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
  /** For each stale or tied row: what the event carried beside the state that stands (an applied row has changes). */
  wouldHaveSet: WouldHaveSet[];
}

/**
 * Re-checks the stored raw body and headers against the source's secrets, ignoring the timestamp
 * window (the delivery is old by definition) and expiries (a rotated-out secret signed what arrived
 * before): "is this the payload the provider signed?"
 */
export function checkSignatureNow(
  event: Pick<WebhookEvent, "source" | "rawBody" | "headers" | "via">,
  source: ResolvedSource | undefined,
): SignatureCheck {
  const secrets = source?.secrets.map((s) => s.value) ?? [];
  if (!source || secrets.length === 0) return { state: "no-secret" };
  const verdict = PROVIDERS[source.provider].verify({
    rawBody: Buffer.from(event.rawBody, "utf8"),
    headers: new Headers(event.headers),
    secrets,
    toleranceSeconds: Number.MAX_SAFE_INTEGER,
    now: Math.floor(Date.now() / 1000),
    options: source.options,
  });
  if (verdict.ok) return { state: "verifies" };
  if (event.via === "replay")
    return { state: "unsigned", reason: "fetched from the provider's API by a replay, not signed by a delivery" };
  return { state: "fails", reason: verdict.reason };
}

export async function getEventDetail(
  db: Db,
  actor: Actor | undefined,
  input: EventKeyInput,
  /** The event's source as configured now (its secrets prove the payload), by slug. */
  sourceOf: (slug: string) => Promise<ResolvedSource | undefined>,
): Promise<EventDetail> {
  authorize(actor, "events.read");
  const key = EventKeyInput.parse(input);
  const at = (t: { source: AnyPgColumn; eventId: AnyPgColumn }) =>
    and(eq(t.source, key.source), eq(t.eventId, key.eventId));
  const [row] = await db
    .select({ ...getViewSelectedFields(webhookEvent), payload: sql<unknown>`${payloadSql("webhook_event")}` })
    .from(webhookEvent)
    .where(at(webhookEvent));
  if (!row) throw new NotFoundError(`no ${key.source} event ${key.eventId}`);
  const { leaseToken: _lease, ...event } = row;
  const [deliveries, [total], attempts, transitions] = await Promise.all([
    db
      .select()
      .from(webhookDelivery)
      .where(at(webhookDelivery))
      .orderBy(desc(webhookDelivery.claimed), desc(webhookDelivery.receivedAt), desc(webhookDelivery.id))
      .limit(DELIVERY_LIMIT),
    db
      .select({ n: sql<number>`${arrivalsSql()}` })
      .from(webhookDelivery)
      .where(at(webhookDelivery)),
    db
      .select()
      .from(webhookAttempt)
      .where(at(webhookAttempt))
      .orderBy(asc(webhookAttempt.number), asc(webhookAttempt.id)),
    db.select().from(entityTransition).where(at(entityTransition)).orderBy(asc(entityTransition.id)),
  ]);
  const source = await sourceOf(event.source);
  const kind = source?.provider ?? (isProviderKind(event.source) ? event.source : undefined);
  return {
    event,
    signature: checkSignatureNow(event, source),
    deliveries: deliveries.sort((a, b) => a.id - b.id),
    deliveryCount: Number(total?.n ?? 0),
    attempts,
    transitions,
    wouldHaveSet: await wouldHaveSet(db, kind, event, transitions),
  };
}

/**
 * Nesting past which the export leaves the parsed payload out (rawBody keeps it, byte for byte). The
 * receiver refuses deeper bodies (WEBHOOK_MAX_DEPTH, 64 by default), but a replay run's events (fetched
 * from the provider's API, never depth-checked) may hold any depth, and a pretty-printed copy grows with
 * its square.
 */
export const EXPORT_MAX_DEPTH = 64;

/**
 * Everything the ledger knows about one event, as one document for a dispute or an audit.
 * The export itself is audited: payloads can hold personal data.
 */
export async function exportEvent(
  db: Db,
  actor: Actor | undefined,
  input: EventKeyInput,
  sourceOf: (slug: string) => Promise<ResolvedSource | undefined>,
) {
  authorize(actor, "events.read");
  const detail = await getEventDetail(db, actor, input, sourceOf);
  await writeAudit(db, actor, {
    action: "events.export",
    target: `event:${detail.event.source}/${detail.event.eventId}`,
    result: "ok",
  });
  const tooDeep = nestingExceeds(detail.event.payload, EXPORT_MAX_DEPTH);
  return {
    exportedAt: new Date().toISOString(),
    exportedBy: actor.email,
    signatureVerifiesWithCurrentSecret: detail.signature,
    event: tooDeep ? { ...detail.event, payload: null } : detail.event,
    ...(tooDeep
      ? {
          payloadOmitted: `the payload nests deeper than ${EXPORT_MAX_DEPTH} levels; rawBody holds it exactly as received`,
        }
      : {}),
    rawBody: detail.event.rawBody,
    headers: detail.event.headers,
    deliveries: detail.deliveries,
    deliveryCount: detail.deliveryCount,
    attempts: detail.attempts,
    entityTransitions: detail.transitions,
  };
}

/**
 * The export as the downloaded file: indented, which is safe once exportEvent has bounded the nesting.
 * Anything else that still nests too deep (a hand-written row's headers, say) is written compactly.
 */
export function exportJson(doc: Awaited<ReturnType<typeof exportEvent>>): string {
  return nestingExceeds(doc, EXPORT_MAX_DEPTH + 4) ? JSON.stringify(doc) : JSON.stringify(doc, null, 2);
}
