import { ValidationError } from "@/lib/errors";
import { extractSubjectIds } from "@/lib/ledger/subjects";
import { PROVIDERS, type ProviderKind, type RequestHeaders } from "@/lib/providers";

import { claimOf, type Claim } from "./claim";
import { storableHeaders } from "./headers";
import { isPgStorable, pgText } from "./json";
import { isTestPayload } from "@/lib/providers/test-marker";

export type Described = { ok: true; claim: Claim } | { ok: false; reason: string };

const MAX_ID = 255;
/** ClaimInput's bound on a subject id (an address may be this long). */
const MAX_SUBJECT = 320;

/**
 * The edge's one parse: a verified, parsed payload and its headers → the claim to store. The same
 * mapping serves a provider's delivery and an event fetched back from its API, so a replayed event is
 * keyed and indexed exactly like a delivered one.
 *
 * Only the identity can refuse an event (no id, an id PostgreSQL cannot store): a 400 makes the sender
 * give up, so anything else odd (a version out of range, a control character in a type) is stored as
 * best it can be and noted, for the worker and the console to say what is wrong with it.
 */
export function describeDelivery(args: {
  /** The source's slug, provider kind and options. */
  source: { slug: string; provider: ProviderKind; options?: unknown };
  payload: unknown;
  rawBody: string;
  headers: RequestHeaders;
  via: "provider" | "replay";
  claimMode?: "enforce" | "shadow";
  actor?: string;
  /** The fingerprint of the secret that verified it (the receiver's; a replay has none). */
  verifiedWith?: string;
}): Described {
  const provider = PROVIDERS[args.source.provider];
  const described = provider.describe(args.payload, args.headers, {
    rawText: args.rawBody,
    options: args.source.options,
  });
  if (!described.ok) return described;
  const { eventId, eventType, entity } = described.event;
  // What ClaimInput asks of each field, checked or made so here (claimOf does not run the schema again); non-empty
  // ids and types and safe-integer versions are the providers' own contract (EventIdentity).
  if (eventId.length > MAX_ID) return { ok: false, reason: `event id longer than ${MAX_ID} characters` };
  if (!isPgStorable(eventId))
    return { ok: false, reason: "event id holds U+0000 or a lone surrogate, which cannot be stored" };
  const type = pgText(eventType.slice(0, MAX_ID));
  const unsigned =
    typeof provider.unsignedId === "function" ? provider.unsignedId(args.source.options) : provider.unsignedId;
  try {
    return {
      ok: true,
      claim: claimOf(
        {
          source: args.source.slug,
          eventId,
          eventType: type,
          rawBody: args.rawBody,
          headers: storableHeaders(args.headers),
          entityType: entity && pgText(entity.type.slice(0, MAX_ID)),
          entityId: entity && pgText(entity.id.slice(0, MAX_ID)),
          entityVersion: entity?.version,
          subjectIds: extractSubjectIds(args.payload, args.rawBody).filter(
            (id) => id.length <= MAX_SUBJECT && isPgStorable(id),
          ),
          intakeNote: entity?.versionNote && pgText(entity.versionNote.slice(0, 500)),
          via: args.via,
          bodyKeyScope: unsigned === undefined ? undefined : unsigned === "type" ? type : "",
          verifiedWith: args.verifiedWith,
          test: isTestPayload(args.payload),
          claimMode: args.claimMode ?? "enforce",
          actor: args.actor?.slice(0, MAX_ID),
        },
        args.payload,
      ),
    };
  } catch (err) {
    if (err instanceof ValidationError) return { ok: false, reason: err.message };
    throw err;
  }
}
