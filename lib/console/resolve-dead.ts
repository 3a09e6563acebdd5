import { sql } from "drizzle-orm";
import { z } from "zod";
import { rowsOf, type Db } from "@/db/client";
import { pgArray } from "@/db/pg-array";
import { EVENT_RESOLUTIONS } from "@/db/schema";
import { audited } from "@/lib/audit/audited";
import type { Actor } from "@/lib/roles";
import { textProblem } from "@/lib/ledger/params";
import { EventKeyInput } from "./requeue";
import { ConflictError, type EventKey } from "@/lib/ledger/types";

/** One decision covers at most this many events (a page of the dead list, selected). */
export const RESOLVE_MAX_KEYS = 500;
export const RESOLUTION_NOTE_MAX = 500;

export const ResolveDeadInput = z.object({
  keys: z
    .array(EventKeyInput)
    .min(1, "select at least one dead event")
    .max(RESOLVE_MAX_KEYS, `select at most ${RESOLVE_MAX_KEYS} events at a time`),
  resolution: z.enum(EVENT_RESOLUTIONS),
  note: z
    .string()
    .trim()
    .min(1, "write a note: what was done, or why nothing needs doing")
    .superRefine((v, ctx) => {
      const problem = textProblem(v, RESOLUTION_NOTE_MAX);
      if (problem) ctx.addIssue({ code: "custom", message: `the note ${problem}` });
    }),
});
export type ResolveDeadInput = z.input<typeof ResolveDeadInput>;

export interface ResolveDeadResult {
  resolved: number;
  /** Selected keys that were no longer dead (requeued or decided meanwhile): left as they are. */
  notDead: EventKey[];
}

const keyText = (k: EventKey) => `${k.source}/${k.eventId}`;

/**
 * A person's decision on dead events: resolved by hand, or ignored (no work needed). They settle without
 * running, with the note, who and when; the audit row commits with them. The change is conditional on
 * `status = 'dead'`: a key requeued or decided meanwhile is skipped and reported, and when none is
 * dead any more nothing happens (ConflictError), so a stale selection never overwrites newer work.
 */
export async function resolveDeadEvents({
  db,
  actor,
  input,
}: {
  db: Db;
  actor: Actor | undefined;
  input: ResolveDeadInput;
}): Promise<ResolveDeadResult> {
  const { resolution, note, ...parsed } = ResolveDeadInput.parse(input);
  const keys = [...new Map(parsed.keys.map((k) => [keyText(k), k])).values()];
  const single = keys.length === 1 ? keys[0] : undefined;
  return audited(
    db,
    actor,
    "events.requeue",
    {
      action: `events.${resolution === "resolved" ? "resolve" : "ignore"}-dead`,
      target: single ? `event:${keyText(single)}` : "events",
      detail: { resolution, note, selected: keys.length, keys: keys.map(keyText) },
    },
    async (tx, who, entry) => {
      const rows = rowsOf<{ source: string; event_id: string }>(
        await tx.execute(sql`
          with v as (
            select * from unnest(${pgArray(
              keys.map((k) => k.source),
              "text",
            )}, ${pgArray(
              keys.map((k) => k.eventId),
              "text",
            )}) as v(source, event_id)
          )
          update webhook_event_state e
          set status = 'settled', settled_at = now(), resolution = ${resolution}, resolution_note = ${note},
              resolved_by = ${who.email}, resolved_at = now(), next_trigger = 'auto', next_actor = null
          from v
          where e.source = v.source and e.event_id = v.event_id and e.status = 'dead'
          returning e.source, e.event_id`),
      );
      const done = new Set(rows.map((r) => `${r.source}/${r.event_id}`));
      const notDead = keys.filter((k) => !done.has(keyText(k)));
      if (rows.length === 0)
        throw new ConflictError(
          single
            ? `event ${single.eventId} is no longer dead (requeued or decided meanwhile); nothing changed`
            : `none of the ${keys.length} selected events is dead any more; nothing changed`,
        );
      entry.detail = { ...entry.detail, count: rows.length, notDead: notDead.map(keyText) };
      return { resolved: rows.length, notDead };
    },
  );
}
