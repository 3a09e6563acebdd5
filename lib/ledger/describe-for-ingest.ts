import { PROVIDERS, type Source } from "@/lib/providers";
import { storableHeaders } from "@/lib/receiver/headers";
import type { IngestInput } from "./ingest";
import { extractSubjectIds } from "./subjects";

export type DescribedForIngest = { ok: true; input: IngestInput } | { ok: false; reason: string };

/**
 * A parsed payload and its headers → what the claim stores. One mapping for a provider's delivery and
 * for an event fetched back from its API, so a replayed event is keyed and indexed exactly like a delivered one.
 */
export function describeForIngest(args: {
  source: Source;
  payload: unknown;
  rawBody: string;
  headers: Headers;
  via: "provider" | "replay";
  claimMode?: "enforce" | "shadow";
  actor?: string;
}): DescribedForIngest {
  const described = PROVIDERS[args.source].describe(args.payload, args.headers);
  if (!described.ok) return described;
  const { eventId, eventType, entity } = described.event;
  if (eventId.length > 255) return { ok: false, reason: "event id longer than 255 characters" };
  return {
    ok: true,
    input: {
      source: args.source,
      eventId,
      eventType: eventType.slice(0, 255),
      rawBody: args.rawBody,
      headers: storableHeaders(args.headers),
      entityType: entity?.type.slice(0, 255),
      entityId: entity?.id.slice(0, 255),
      entityVersion: entity?.version,
      subjectIds: extractSubjectIds(args.payload),
      via: args.via,
      claimMode: args.claimMode,
      actor: args.actor,
    },
  };
}
