import { and, sql } from "drizzle-orm";
import { rowsOf, setLocalTimeouts, type Db } from "@/db/client";
import { payloadSql } from "@/db/payload";
import { authorize, type Actor } from "@/lib/roles";
import { sqlState, UnavailableError, ValidationError } from "@/lib/errors";
import { plural } from "@/lib/format/words";
import { resolvedConditions } from "./event-filter";
import { eventPage, ListEventsInput, type EventPage } from "./list-events";
import { conditionSql, conditionText, parseCondition } from "./payload-condition";

/**
 * A payload search reads every event of its window (a body stored as text is parsed per row), so it is bounded
 * twice: in time received (a window, the last day unless one is given, a week at most) and in time spent (a
 * statement timeout for the whole search), past which the page asks for a narrower window rather than waiting.
 */
export const PAYLOAD_SEARCH_TIMEOUT_MS = 5000;
export const PAYLOAD_SEARCH_DEFAULT_MS = 24 * 3600_000;
export const PAYLOAD_SEARCH_MAX_MS = 7 * 24 * 3600_000;

export interface PayloadSearchInfo {
  /** The condition as parsed, written back: `data.object.status = "past_due"`. */
  condition: string;
  from: Date;
  to: Date;
  /** No window was given: the last PAYLOAD_SEARCH_DEFAULT_MS. */
  defaulted: boolean;
  /** Events of the window that the other filters kept, each of whose payload was read. */
  examined: number;
  matched: number;
  ms: number;
}

export type SearchPayloadsInput = ListEventsInput & { where: string };

const QUERY_CANCELED = "57014";
const day = (ms: number) => plural(Math.round((ms / 86_400_000) * 10) / 10, "day");

/** The window searched: the filter's From and To, the last day before To (or now) when either is missing. */
function windowOf(from: Date | undefined, to: Date | undefined, now: Date) {
  const end = to ?? now;
  const start = from ?? new Date(end.getTime() - PAYLOAD_SEARCH_DEFAULT_MS);
  if (start >= end) throw new ValidationError("From must be before To for a payload search", "from");
  if (end.getTime() - start.getTime() > PAYLOAD_SEARCH_MAX_MS)
    throw new ValidationError(
      `a payload search covers at most ${day(PAYLOAD_SEARCH_MAX_MS)}, and ${start.toISOString()} to ` +
        `${end.toISOString()} is ${day(end.getTime() - start.getTime())}: narrow From and To`,
      "from",
    );
  return { from: start, to: end, defaulted: !from && !to };
}

/**
 * The events page with a payload condition: the events of a bounded window that match it, paged as the list
 * is, with how many events were examined and how many matched. Past the time budget it throws an
 * UnavailableError that says to narrow the window; a condition that does not parse is a ValidationError.
 */
export async function searchPayloads(
  db: Db,
  actor: Actor | undefined,
  input: SearchPayloadsInput,
  opts: { timeoutMs?: number; now?: Date } = {},
): Promise<EventPage & { payload: PayloadSearchInfo }> {
  authorize(actor, "events.read");
  const condition = parseCondition(String(input.where));
  const i = ListEventsInput.parse(input);
  const window = windowOf(i.filter.from, i.filter.to, opts.now ?? new Date());
  const filter = { ...i.filter, from: window.from, to: window.to };
  const budget = opts.timeoutMs ?? PAYLOAD_SEARCH_TIMEOUT_MS;
  const matches = conditionSql(condition, payloadSql("webhook_event"));
  const started = performance.now();
  // What is left of the budget for the next statement: the count and the page share one.
  const bound = (tx: Db) =>
    setLocalTimeouts(tx, { statementTimeoutMs: Math.max(1, Math.ceil(budget - (performance.now() - started))) });
  try {
    return await db.transaction(async (tx) => {
      await bound(tx);
      const where = await resolvedConditions(tx, filter);
      const [counts] = rowsOf<{ examined: number; matched: number }>(
        await tx.execute(sql`
          select count(*)::int as examined, count(*) filter (where ${matches})::int as matched
          from webhook_event
          where ${and(...where) ?? sql`true`}`),
      );
      await bound(tx);
      const page = await eventPage(tx, { ...i, filter }, [matches]);
      const ms = Math.round(performance.now() - started);
      return {
        ...page,
        payload: {
          condition: conditionText(condition),
          ...window,
          examined: Number(counts?.examined ?? 0),
          matched: Number(counts?.matched ?? 0),
          ms,
        },
      };
    });
  } catch (err) {
    if (sqlState(err) !== QUERY_CANCELED) throw err;
    throw new UnavailableError(
      `the payload search took longer than ${budget / 1000} s over ${window.from.toISOString()} to ` +
        `${window.to.toISOString()}: narrow the window (From and To), or choose a source or type`,
      1,
      { cause: err },
    );
  }
}
