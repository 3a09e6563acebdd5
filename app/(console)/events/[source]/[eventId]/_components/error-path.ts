import type { InputErrorDetail, InputProblem, PayloadPath } from "@/lib/handlers/types";
import { EVENT_TIME_FIELDS } from "@/lib/providers/time";
import type { ProviderKind } from "@/lib/providers/types";

/** Where the payload went wrong, as the failed attempt (or the intake note) recorded it, found in the payload. */
export interface NamedPath {
  /** The whole path as the viewer writes it (data.object.id). */
  named: string;
  /** The deepest part of it the payload has: the node to open and highlight ([] is the root). */
  found: (string | number)[];
  /** The first segment the payload lacks. */
  missing?: string | number;
  /** What is wrong there; "version-unusable": the intake could not read the entity's version from it. */
  problem: InputProblem | "version-unusable";
}

const childOf = (v: unknown, key: string | number): { ok: boolean; value: unknown } => {
  if (Array.isArray(v))
    return typeof key === "number" && key < v.length ? { ok: true, value: v[key] } : { ok: false, value: undefined };
  if (v !== null && typeof v === "object" && Object.hasOwn(v, String(key)))
    return { ok: true, value: (v as Record<string, unknown>)[String(key)] };
  return { ok: false, value: undefined };
};

function inPayload(path: PayloadPath, payload: unknown, problem: NamedPath["problem"]): NamedPath {
  const found: (string | number)[] = [];
  let v = payload;
  for (const s of path) {
    // An index recorded for an array reads as a key where the payload has an object there, and the other way.
    const key = Array.isArray(v) && typeof s === "string" && /^\d+$/.test(s) ? Number(s) : s;
    const next = childOf(v, key);
    if (!next.ok) return { named: pathText(path), found, missing: key, problem };
    found.push(key);
    v = next.value;
  }
  return { named: pathText(path), found, problem };
}

/**
 * The path to show: the last failed attempt's (a handler's input error records it), else, when intake noted
 * an unusable version, the provider's version field. Nothing is read out of the messages' words.
 */
export function errorPath(
  input: {
    detail?: InputErrorDetail | null;
    intakeNote?: string | null;
    provider?: ProviderKind;
    options?: unknown;
  },
  payload: unknown,
): NamedPath | undefined {
  if (input.detail?.path) return inPayload(input.detail.path, payload, input.detail.problem);
  if (!input.intakeNote || !input.provider) return undefined;
  // A generic source names its version's path in its options; the other kinds read their event time field.
  const dotted =
    input.provider === "generic"
      ? (input.options as { versionPath?: string } | undefined)?.versionPath
      : EVENT_TIME_FIELDS[input.provider];
  return dotted ? inPayload(dotted.split("."), payload, "version-unusable") : undefined;
}

/** A path as the viewer writes it: data.object.items.data[0]. */
export const pathText = (segments: readonly (string | number)[]) =>
  segments.reduce<string>(
    (p, s) =>
      typeof s === "number"
        ? `${p}[${s}]`
        : /^[A-Za-z_$][\w$]*$/.test(s)
          ? p
            ? `${p}.${s}`
            : s
          : `${p}[${JSON.stringify(s)}]`,
    "",
  );
