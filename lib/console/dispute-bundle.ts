import { createHash } from "node:crypto";
import { sql } from "drizzle-orm";
import { rowsOf, type Db } from "@/db/client";
import { type AttemptOutcome, type AttemptTrigger, type ErrorKind, type EventVia } from "@/db/schema";
import { writeAudit } from "@/lib/audit/write";
import { authorize, type Actor } from "@/lib/roles";
import { parseTimestampedHeader } from "@/lib/providers/crypto";
import { GenericOptions } from "@/lib/providers/generic";
import { parseUnixSeconds, type ProviderKind } from "@/lib/providers/types";
import type { ResolvedSource } from "@/lib/sources/types";
import { summarizeBundle, type BundleSummary } from "./bundle-summary";
import { checkSignatureNow, type SignatureCheck } from "./event-detail";
import { extractSubjectIds } from "@/lib/ledger/subjects";
import {
  findSubjectKeys,
  isoOf,
  keysRelation,
  subjectEntities,
  subjectEvents,
  SUBJECT_EVENT_LIMIT,
  type SourceOf,
  type SubjectEntity,
  type SubjectEvent,
  type SubjectInput,
  type SubjectKey,
  type SubjectTransition,
} from "./subject";

/** Raw bodies a bundle carries at most; events past it are listed as omitted (each has its own export). */
export const BUNDLE_MAX_BODY_BYTES = 32 * 2 ** 20;
/** Deliveries and attempts listed per event; a duplicate storm can leave thousands (the count is still given). */
export const BUNDLE_ROWS_PER_EVENT = 200;

// One line per provider kind: what was signed, with what, and where the signature travels.
const SCHEMES: Record<Exclude<ProviderKind, "generic">, string> = {
  stripe: "HMAC-SHA256 of `{t}.{body}` with the endpoint's whsec_ secret, hex in Stripe-Signature (t=…,v1=…)",
  github: "HMAC-SHA256 of `{body}`, hex in X-Hub-Signature-256 (sha256=…); GitHub signs no timestamp",
  shopify: "HMAC-SHA256 of `{body}`, base64 in X-Shopify-Hmac-Sha256; Shopify signs no timestamp",
  paddle: "HMAC-SHA256 of `{ts}:{body}`, hex in Paddle-Signature (ts=…;h1=…)",
  slack:
    "HMAC-SHA256 of `v0:{timestamp}:{body}`, hex in X-Slack-Signature (v0=…), timestamp in X-Slack-Request-Timestamp",
  standard:
    "Standard Webhooks: HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}`, base64 in webhook-signature (v1,…), or Ed25519 (v1a,…)",
};

export interface SignatureScheme {
  kind: ProviderKind | null;
  description: string;
  /** The timestamp the provider signed with the body, where it signs one (read from the stored headers). */
  signedTimestamp: { unix: number; at: string; header: string } | null;
}

/** How the source's provider signs, and the timestamp it signed, from the headers stored at arrival. */
export function signatureScheme(
  kind: ProviderKind | undefined,
  headers: Record<string, string>,
  options?: unknown,
): SignatureScheme {
  const h = (name: string) => headers[name] ?? headers[name.toLowerCase()];
  const stamp = (unix: number | undefined, header: string) =>
    unix === undefined ? null : { unix, at: new Date(unix * 1000).toISOString(), header };
  const timestamped = (header: string, separator: string, timestampKey: string, signatureKey: string) => {
    const value = h(header);
    return value ? parseTimestampedHeader(value, { separator, timestampKey, signatureKey }).timestamp : undefined;
  };
  switch (kind) {
    case undefined:
      return { kind: null, description: "unknown: this source is no longer configured", signedTimestamp: null };
    case "stripe":
      return {
        kind,
        description: SCHEMES.stripe,
        signedTimestamp: stamp(timestamped("stripe-signature", ",", "t", "v1"), "stripe-signature"),
      };
    case "paddle":
      return {
        kind,
        description: SCHEMES.paddle,
        signedTimestamp: stamp(timestamped("paddle-signature", ";", "ts", "h1"), "paddle-signature"),
      };
    case "slack":
      return {
        kind,
        description: SCHEMES.slack,
        signedTimestamp: stamp(parseUnixSeconds(h("x-slack-request-timestamp")), "x-slack-request-timestamp"),
      };
    case "standard":
      return {
        kind,
        description: SCHEMES.standard,
        signedTimestamp: stamp(parseUnixSeconds(h("webhook-timestamp")), "webhook-timestamp"),
      };
    case "github":
    case "shopify":
      return { kind, description: SCHEMES[kind], signedTimestamp: null };
    case "generic": {
      const o = GenericOptions.safeParse(options);
      if (!o.success)
        return { kind, description: "generic HMAC (this source's options no longer parse)", signedTimestamp: null };
      const { algorithm, encoding, prefix, signatureHeader, signedContent } = o.data;
      const what = signedContent === "body" ? "{body}" : signedContent.template;
      const header = signedContent === "body" ? undefined : signedContent.timestampHeader.toLowerCase();
      return {
        kind,
        description:
          `HMAC-${algorithm.toUpperCase()} of \`${what}\`, ${encoding} in ${signatureHeader}` +
          (prefix ? ` (${prefix}…)` : "") +
          (header ? `, timestamp in ${header}` : ""),
        signedTimestamp: header ? stamp(parseUnixSeconds(h(header)), header) : null,
      };
    }
  }
}

export interface BundleEvent {
  source: string;
  provider: ProviderKind | null;
  eventId: string;
  eventType: string;
  receivedAt: string;
  settledAt: string | null;
  providerTime: SubjectEvent["providerTime"];
  amount: SubjectEvent["amount"];
  status: SubjectEvent["status"];
  via: EventVia;
  /** Sent by the console's test button: never applied. */
  test: boolean;
  lastError: string | null;
  entity: SubjectEvent["entity"];
  /** The body exactly as received: its UTF-8 bytes are what the provider signed. */
  rawBody: string;
  /** Hex SHA-256 of rawBody's UTF-8 bytes: as stored at arrival, and computed again (matches: null when none was stored). */
  bodySha256: { stored: string | null; recomputed: string; matches: boolean | null };
  signature: SignatureScheme;
  /** Fingerprint of the secret that verified the delivery at arrival; null for replayed or older rows. */
  verifiedAtArrival: string | null;
  /** Whether the stored body and headers verify with the source's secrets configured now (timestamp window ignored). */
  signatureCheckNow: SignatureCheck;
  headers: Record<string, string>;
  deliveryCount: number;
  deliveries: { receivedAt: string; via: EventVia; duplicate: boolean; reprocessed: boolean }[];
  attemptCount: number;
  /** Attempts that applied its effects (outcome settled): the "applied once" of the summary. */
  appliedCount: number;
  attempts: {
    number: number;
    trigger: AttemptTrigger;
    startedAt: string;
    finishedAt: string;
    outcome: AttemptOutcome;
    error: string | null;
    errorKind: ErrorKind | null;
  }[];
  timeline: Omit<SubjectTransition, "source" | "eventId">[];
}

export interface DisputeBundle {
  bundle: "webhook-ledger dispute bundle";
  subject: string;
  generatedAt: string;
  generatedBy: string;
  /** The first page: who, what, when, delivered and applied how many times, and the conclusion. */
  summary: BundleSummary;
  /** Every event the ledger holds for the subject is below (none left out by a bound). */
  complete: boolean;
  limits: string[];
  found: number;
  sha256: string;
  events: BundleEvent[];
  omitted: { source: string; eventId: string; bodyBytes: number; reason: string }[];
  entities: SubjectEntity[];
}

interface BodyRow extends SubjectKey {
  rawBody: string;
  bodySha256: string | null;
  headers: Record<string, string>;
  settledAt: string | null;
  verifiedWith: string | null;
}

/** The evidence queries for these events, exported for the EXPLAIN test: primary key and per-event indexes only. */
export function bundleQueries(keys: readonly SubjectKey[]) {
  const n = BUNDLE_ROWS_PER_EVENT;
  return {
    bodies: sql`
      select e.source, e.event_id as "eventId", e.raw_body as "rawBody", e.body_sha256 as "bodySha256", e.headers,
             ${isoOf(sql`e.settled_at`)} as "settledAt", e.verified_with as "verifiedWith"
      from ${keysRelation(keys)}
      join webhook_event e on e.source = k.source and e.event_id = k.event_id`,
    deliveries: sql`
      select k.source, k.event_id as "eventId", ${isoOf(sql`w.received_at`)} as "receivedAt", w.via,
             not w.claimed as duplicate, w.reprocessed
      from ${keysRelation(keys)}
      cross join lateral (
        select * from webhook_delivery w where w.source = k.source and w.event_id = k.event_id
        order by w.received_at, w.id limit ${n}
      ) w`,
    attempts: sql`
      select k.source, k.event_id as "eventId", a.number, a.trigger, ${isoOf(sql`a.started_at`)} as "startedAt",
             ${isoOf(sql`a.finished_at`)} as "finishedAt", a.outcome, a.error, a.error_kind as "errorKind",
             (select count(*)::int from webhook_attempt c where c.source = k.source and c.event_id = k.event_id) as total,
             (select count(*)::int from webhook_attempt c
              where c.source = k.source and c.event_id = k.event_id and c.outcome = 'settled') as applied
      from ${keysRelation(keys)}
      cross join lateral (
        select * from webhook_attempt a
        where a.source = k.source and a.event_id = k.event_id
        order by a.number, a.id
        limit ${n}
      ) a`,
  };
}

async function evidenceOf(db: Db, keys: readonly SubjectKey[]) {
  if (keys.length === 0) return { bodies: [], deliveries: [], attempts: [] };
  const q = bundleQueries(keys);
  const [bodies, deliveries, attempts] = await Promise.all([
    db.execute(q.bodies),
    db.execute(q.deliveries),
    db.execute(q.attempts),
  ]);
  return {
    bodies: rowsOf<BodyRow>(bodies),
    deliveries: rowsOf<SubjectKey & BundleEvent["deliveries"][number]>(deliveries),
    attempts: rowsOf<SubjectKey & BundleEvent["attempts"][number] & { total: number; applied: number }>(attempts),
  };
}

const sameKey = (k: SubjectKey) => (r: SubjectKey) => r.source === k.source && r.eventId === k.eventId;
const strip = <T extends SubjectKey>({ source: _s, eventId: _e, ...rest }: T): Omit<T, "source" | "eventId"> => rest;

/**
 * Everything a dispute needs about one customer, as one document: each event's raw body exactly as
 * received with its SHA-256 (stored and recomputed), how its provider signs and the timestamp it signed,
 * every delivery and attempt, and the timeline. Internal fields (leases, next trigger, retry budget, the
 * worker that ran an attempt) stay out. Audited: payloads hold personal data.
 */
export async function buildDisputeBundle(
  db: Db,
  actor: Actor | undefined,
  input: SubjectInput,
  opts: { sourceOf: SourceOf; format: "json" | "print" },
): Promise<DisputeBundle> {
  authorize(actor, "events.read");
  const { sourceOf } = opts;
  const found = await findSubjectKeys(db, input);
  const events = await subjectEvents(db, found.keys, sourceOf);
  const kept: SubjectEvent[] = [];
  const omitted: DisputeBundle["omitted"] = [];
  let budget = BUNDLE_MAX_BODY_BYTES;
  for (const e of events) {
    if (e.bodyBytes <= budget) {
      kept.push(e);
      budget -= e.bodyBytes;
    } else
      omitted.push({
        source: e.source,
        eventId: e.eventId,
        bodyBytes: e.bodyBytes,
        reason: `the bundle carries at most ${BUNDLE_MAX_BODY_BYTES / 2 ** 20} MiB of raw bodies; download this event from its own page`,
      });
  }
  const [evidence, { entities }] = await Promise.all([evidenceOf(db, kept), subjectEntities(db, events)]);
  const configured = new Map<string, ResolvedSource | undefined>();
  for (const e of kept) if (!configured.has(e.source)) configured.set(e.source, await sourceOf(e.source));
  const bundleEvents = kept.flatMap((e): BundleEvent[] => {
    const body = evidence.bodies.find(sameKey(e));
    if (!body) return [];
    const recomputed = createHash("sha256").update(body.rawBody, "utf8").digest("hex");
    const attempts = evidence.attempts.filter(sameKey(e));
    const source = configured.get(e.source);
    return [
      {
        source: e.source,
        provider: e.provider ?? null,
        eventId: e.eventId,
        eventType: e.eventType,
        receivedAt: e.receivedAt,
        settledAt: body.settledAt,
        providerTime: e.providerTime,
        amount: e.amount,
        status: e.status,
        via: e.via,
        test: e.test,
        lastError: e.lastError,
        entity: e.entity,
        rawBody: body.rawBody,
        bodySha256: {
          stored: body.bodySha256,
          recomputed,
          matches: body.bodySha256 === null ? null : body.bodySha256 === recomputed,
        },
        signature: signatureScheme(e.provider, body.headers, source?.options),
        verifiedAtArrival: body.verifiedWith,
        signatureCheckNow: checkSignatureNow({ ...body, via: e.via }, source),
        headers: body.headers,
        deliveryCount: e.deliveries,
        deliveries: evidence.deliveries.filter(sameKey(e)).map(strip),
        attemptCount: Number(attempts[0]?.total ?? 0),
        appliedCount: Number(attempts[0]?.applied ?? 0),
        attempts: attempts.map(({ total: _t, applied: _a, ...a }) => strip(a)),
        timeline: e.transitions.map(strip),
      },
    ];
  });
  const limits: string[] = [];
  if (found.found > found.keys.length)
    limits.push(
      found.capped
        ? `more than ${(found.found - 1).toLocaleString("en")} events mention this value ` +
            `(an id many events share, not one customer): these are the newest ${found.keys.length} of those found first`
        : `${found.found.toLocaleString("en")} events mention this subject: these are the newest ${SUBJECT_EVENT_LIMIT}`,
    );
  if (omitted.length) limits.push(`${omitted.length} events left out for size: see omitted`);
  const summary = summarizeBundle(
    found.subject,
    await whoIs(db, found.subject, bundleEvents),
    bundleEvents.map((e) => ({ ...e, applied: e.appliedCount, lastOutcome: e.attempts.at(-1)?.outcome })),
    limits.length === 0,
  );
  const doc: DisputeBundle = {
    bundle: "webhook-ledger dispute bundle",
    subject: found.subject,
    generatedAt: new Date().toISOString(),
    generatedBy: actor.email,
    summary,
    complete: limits.length === 0,
    limits,
    found: found.found,
    sha256: "bodySha256 is the hex SHA-256 of rawBody's UTF-8 bytes: stored at arrival, recomputed for this bundle",
    events: bundleEvents,
    omitted,
    entities,
  };
  // The audit log outlives erasure, so it names the subject by its SHA-256 and lists the events disclosed.
  await writeAudit(db, actor, {
    action: "subjects.bundle",
    target: `subject:sha256:${createHash("sha256").update(found.subject, "utf8").digest("hex")}`,
    detail: {
      format: opts.format,
      events: bundleEvents.map((e) => `${e.source}/${e.eventId}`),
      omitted: omitted.length,
      found: found.found,
    },
    result: "ok",
  });
  return doc;
}

/** Names the search directory holds for the subject, and the emails its events' payloads name (a few of each). */
async function whoIs(db: Db, subject: string, events: readonly BundleEvent[]) {
  const names = rowsOf<{ value: string }>(
    await db.execute(sql`
      select distinct value from subject_term where subject = ${subject} and field = 'name' order by value limit 5`),
  ).map((r) => r.value);
  const emails = new Set<string>();
  for (const e of events) {
    let payload: unknown;
    try {
      payload = JSON.parse(e.rawBody);
    } catch {
      continue;
    }
    for (const id of extractSubjectIds(payload, e.rawBody)) if (id.includes("@") && emails.size < 5) emails.add(id);
  }
  return { names, emails: [...emails].sort() };
}

/** The download: indented (its raw bodies are strings, so its nesting is the document's own, a few levels). */
export const bundleJson = (doc: DisputeBundle): string => JSON.stringify(doc, null, 2);

export function bundleFileName(subject: string, at = new Date()): string {
  const safe = subject.replace(/[^A-Za-z0-9._@-]/g, "_").slice(0, 80);
  return `dispute-bundle-${safe}-${at.toISOString().slice(0, 10)}.json`;
}
