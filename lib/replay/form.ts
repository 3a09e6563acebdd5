import { z } from "zod";
import type { ReplaySource } from "@/db/schema/replay";
import type { ReplayApiConfig } from "./types";

export const REPLAY_SOURCE_LABELS: Record<ReplaySource, string> = {
  stripe: "Stripe",
  github: "GitHub",
  paddle: "Paddle",
};
const REPLAY_SOURCES = Object.keys(REPLAY_SOURCE_LABELS) as ReplaySource[];

/** How long each provider keeps what a replay lists: a longer window cannot come back whole. */
export const REPLAY_MAX_WINDOW: Record<ReplaySource, { days: number; why: string }> = {
  stripe: { days: 30, why: "Stripe keeps events for 30 days" },
  github: { days: 7, why: "GitHub keeps a hook's deliveries for 3 days (7 on Enterprise Server)" },
  paddle: { days: 90, why: "Paddle's API returns the events of the last 90 days" },
};

export interface ReplaySourceSetup {
  source: ReplaySource;
  label: string;
  ready: boolean;
  /** The variables still to set (names only: a key's value is never shown). */
  missing: string[];
  /** What to set to replay this source, as a sentence. */
  howTo: string;
}

const HOW_TO: Record<ReplaySource, string> = {
  stripe: "Set STRIPE_API_KEY (and STRIPE_API_BASE for a non-default API) to replay Stripe.",
  github:
    "Set GITHUB_TOKEN and GITHUB_REPLAY_HOOK (owner/repo/hook_id of the repository webhook, or its API URL on GitHub Enterprise) to replay GitHub.",
  paddle: "Set PADDLE_API_KEY (a sandbox key, pdl_sdbx_…, replays the sandbox) to replay Paddle.",
};

/** Per source, whether the console can replay it with this configuration, and what to set if not. */
export function replaySourceSetup(config: ReplayApiConfig): ReplaySourceSetup[] {
  const missing: Record<ReplaySource, string[]> = {
    stripe: config.stripe.key ? [] : ["STRIPE_API_KEY"],
    github: [...(config.github.token ? [] : ["GITHUB_TOKEN"]), ...(config.github.hook ? [] : ["GITHUB_REPLAY_HOOK"])],
    paddle: config.paddle.key ? [] : ["PADDLE_API_KEY"],
  };
  return REPLAY_SOURCES.map((source) => ({
    source,
    label: REPLAY_SOURCE_LABELS[source],
    ready: missing[source].length === 0,
    missing: missing[source],
    howTo: HOW_TO[source],
  }));
}

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2}))?)?\s*(?:Z|UTC)?$/i;

/** "2026-11-01 09:30" (also "…T09:30", seconds, a trailing Z or UTC, or a date alone for midnight) read as UTC. */
export function parseUtcDateTime(value: string): Date | undefined {
  const m = DATE_TIME.exec(value.trim());
  if (!m) return undefined;
  const [y, mo, d, h = 0, mi = 0, sec = 0] = m.slice(1).map((p) => (p === undefined ? undefined : Number(p)));
  const date = new Date(Date.UTC(y!, mo! - 1, d!, h, mi, sec));
  // Date.UTC rolls 2026-02-30 over to March: a value that does not come back the same is not a real time.
  const same =
    date.getUTCFullYear() === y &&
    date.getUTCMonth() === mo! - 1 &&
    date.getUTCDate() === d &&
    date.getUTCHours() === h &&
    date.getUTCMinutes() === mi &&
    date.getUTCSeconds() === sec;
  return same ? date : undefined;
}

/** The form's text for a moment: "2026-11-01 09:30" (seconds only when there are some), UTC. */
export function formatUtcDateTime(date: Date): string {
  const iso = date.toISOString();
  return iso.slice(0, iso.slice(17, 19) === "00" ? 16 : 19).replace("T", " ");
}

export const REPLAY_FORM_FIELDS = ["source", "since", "until", "types"] as const;
export type ReplayFormField = (typeof REPLAY_FORM_FIELDS)[number];
export type ReplayFormValues = Record<ReplayFormField, string>;
export type ReplayFormErrors = Partial<Record<ReplayFormField, string>>;

export interface ReplayFormInput {
  source: ReplaySource;
  since: Date;
  until: Date | undefined;
  types: string[];
}

const EXAMPLE = "2026-11-01 09:30";
const DAY_MS = 86_400_000;

const dateTime = (what: "start" | "end") =>
  z
    .string()
    .trim()
    .transform((v, ctx) => {
      if (v === "") {
        if (what === "start")
          ctx.addIssue({ code: "custom", message: `Give the start: a UTC date and 24 h time like ${EXAMPLE}` });
        return undefined;
      }
      const at = parseUtcDateTime(v);
      if (!at)
        ctx.addIssue({
          code: "custom",
          message: `The ${what} must be a UTC date and 24 h time like ${EXAMPLE} (YYYY-MM-DD HH:MM)`,
        });
      return at;
    });

/**
 * The console's replay form: text in, a replay's window out, or a message per field a person can act on.
 * `ready` is the sources this process can replay (a key configured); `now` ends a window left open.
 */
export function replayFormSchema({ ready, now }: { ready: readonly ReplaySource[]; now: Date }) {
  return z
    .object({
      source: z
        .string()
        .trim()
        .transform((v, ctx) => {
          const source = REPLAY_SOURCES.find((s) => s === v);
          if (!source) ctx.addIssue({ code: "custom", message: "Choose a source" });
          else if (!ready.includes(source))
            ctx.addIssue({
              code: "custom",
              message: `${REPLAY_SOURCE_LABELS[source]} cannot be replayed here: ${HOW_TO[source]}`,
            });
          return source ?? "stripe";
        }),
      since: dateTime("start"),
      until: dateTime("end"),
      types: z
        .string()
        .transform((v) =>
          v
            .split(/[\s,]+/)
            .map((t) => t.trim())
            .filter(Boolean),
        )
        .refine((t) => t.length <= 50, "Event types: at most 50")
        .refine((t) => t.every((x) => x.length <= 255), "Event types: each at most 255 characters"),
    })
    .superRefine((v, ctx) => {
      if (!v.since) return;
      const end = v.until ?? now;
      if (v.since.getTime() >= end.getTime()) {
        ctx.addIssue({
          code: "custom",
          path: ["since"],
          message: v.until
            ? "The start must be before the end"
            : "The start is in the future: choose a time before now",
        });
        return;
      }
      const max = REPLAY_MAX_WINDOW[v.source];
      const days = (end.getTime() - v.since.getTime()) / DAY_MS;
      if (days > max.days)
        ctx.addIssue({
          code: "custom",
          path: ["since"],
          message: `A ${REPLAY_SOURCE_LABELS[v.source]} window is at most ${max.days} days (${max.why}); this one is ${Math.ceil(days)} days`,
        });
    })
    .transform((v): ReplayFormInput => ({ source: v.source, since: v.since!, until: v.until, types: v.types }));
}

/** The replay window the form's fields describe, or the first message for each field that is wrong (pure). */
export function getReplayWindow(
  values: ReplayFormValues,
  opts: { ready: readonly ReplaySource[]; now: Date },
): { ok: true; input: ReplayFormInput } | { ok: false; errors: ReplayFormErrors } {
  const parsed = replayFormSchema(opts).safeParse(values);
  if (parsed.success) return { ok: true, input: parsed.data };
  const errors: ReplayFormErrors = {};
  for (const issue of parsed.error.issues) {
    const field = REPLAY_FORM_FIELDS.find((f) => f === issue.path[0]) ?? "since";
    errors[field] ??= issue.message;
  }
  return { ok: false, errors };
}
