import type { ProviderKind } from "./types";

/** Where each provider says when an event happened; the rest (GitHub, generic) have only the received time. */
export const EVENT_TIME_FIELDS: Partial<Record<ProviderKind, string>> = {
  stripe: "created",
  paddle: "occurred_at",
  shopify: "updated_at",
  slack: "event_time",
  standard: "timestamp",
};

/**
 * ISO 8601 → microseconds since the epoch, keeping sub-millisecond digits that Date.parse drops
 * (Paddle's occurred_at has six). Undefined when the text is not a timestamp with a zone.
 */
export function isoToMicros(value: unknown): number | undefined {
  if (typeof value !== "string") return undefined;
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:?\d{2})$/i.exec(value);
  if (!m) return undefined;
  const [, base = "", fraction = "", zone] = m;
  // Date.parse rolls an impossible day over (Feb 30 → Mar 1): refuse it rather than invent a version.
  const [year = 0, month = 0, day = 0] = base.slice(0, 10).split("-").map(Number);
  if (day < 1 || day > new Date(Date.UTC(year, month, 0)).getUTCDate()) return undefined;
  const millis = Date.parse(`${base}${zone}`);
  if (Number.isNaN(millis)) return undefined;
  const micros = Number((fraction + "000000").slice(0, 6));
  return millis * 1000 + micros;
}

export interface VersionRead {
  version?: number;
  /** Why a version present in the payload cannot be used; the event is still claimed, with this note. */
  note?: string;
}

const LATEST_EXACT = new Date(Math.floor(Number.MAX_SAFE_INTEGER / 1000)).toISOString();

/** An ISO time (the entity's version, in microseconds) read from `field`; absent is fine, odd is noted. */
export function versionFromIso(value: unknown, field: string): VersionRead {
  if (value === undefined || value === null) return {};
  const micros = isoToMicros(value);
  const shown = JSON.stringify(value).slice(0, 60);
  if (micros === undefined) return { note: `version unusable: ${field} ${shown} is not an ISO 8601 time with a zone` };
  if (!Number.isSafeInteger(micros))
    return {
      note: `version unusable: ${field} ${shown} is beyond ${LATEST_EXACT}, the latest time a version holds exactly`,
    };
  return { version: micros };
}

/** An integer version (unix seconds) read from `field`; absent is fine, odd is noted. */
export function versionFromInteger(value: unknown, field: string): VersionRead {
  if (value === undefined || value === null) return {};
  if (typeof value === "number" && Number.isSafeInteger(value)) return { version: value };
  return { note: `version unusable: ${field} ${JSON.stringify(value).slice(0, 60)} is not an integer below 2^53` };
}

/** A VersionRead as EntityRef fields. */
export const versionOf = (r: VersionRead): { version?: number; versionNote?: string } =>
  r.note !== undefined ? { versionNote: r.note } : r.version !== undefined ? { version: r.version } : {};
