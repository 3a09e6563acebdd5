import { sql, type SQL } from "drizzle-orm";
import { rowsOf, type Db, type Tx } from "./client";
import { pgArray } from "./pg-array";

/** An event's key, as lib/ledger names it. */
export interface StoredEventKey {
  source: string;
  eventId: string;
}

/** `(source, event_id)` of these keys as a relation `k`, for primary-key and per-event index lookups. */
export function keysRelation(keys: readonly StoredEventKey[]): SQL {
  const sources = pgArray(
    keys.map((k) => k.source),
    "text",
  );
  const ids = pgArray(
    keys.map((k) => k.eventId),
    "text",
  );
  return sql`unnest(${sources}, ${ids}) as k(source, event_id)`;
}

/** A scan statement reads at most this many heap blocks (8 kB each), and stops adding raw bodies past this many bytes. */
const SCAN_BLOCKS = 128;
const SCAN_BYTES = 8 * 2 ** 20;

// Characters no common JSON encoder escapes: matched as themselves. Any other may arrive as \uXXXX (PHP's
// JSON_HEX_APOS, Go's <>&, Python's non-ASCII), and `/` as `\/`, `"` as `\"`, `\` as `\\`.
const PLAIN = /^[A-Za-z0-9@._+-]$/;
const PLAIN_RUNS = /[A-Za-z0-9@._+-]+/g;
// A mention is the whole value: not part of a longer id or address (xo'connor@…, …@example.com.au, cus_abc1).
// A JSON escape just before it (\n, \u003c) ends the text before, as a space would.
const TOKEN = "[[:alnum:]_.+'-]";
const BEFORE = `(?:(?<!${TOKEN})|(?<=\\\\[bfnrt])|(?<=\\\\u[[:xdigit:]]{4}))`;
const AFTER = "(?![[:alnum:]_-])(?!\\.[[:alnum:]])";

const hex4 = (unit: number) => `\\\\u${unit.toString(16).padStart(4, "0")}`;

function spellings(ch: string): string {
  if (PLAIN.test(ch)) return /[.+]/.test(ch) ? `\\${ch}` : ch;
  const units = Array.from({ length: ch.length }, (_, i) => hex4(ch.charCodeAt(i))).join("");
  const literal = /^[\x21-\x7e]$/.test(ch) ? `\\${ch}` : ch;
  const short = ch === "/" || ch === '"' || ch === "\\" ? [`\\\\\\${ch}`] : [];
  return `(?:${[literal, ...short, units].join("|")})`;
}

export interface MentionMatcher {
  /** A PostgreSQL ARE, matched case-insensitively (`~*`): the subject as a whole value, in each JSON spelling. */
  pattern: string;
  /** Lower-cased text every match contains (the longest run of characters never escaped): a cheap test first. */
  core: string;
}

/**
 * "An event mentions a subject" is defined here, by what was stored (raw body, headers, payload), not by the
 * search index: subject_ids holds what the extractor found, which stops at 64 ids and 8 levels and knows shapes.
 * In db/ because both the customer view (lib/ledger) and erasure (lib/retention) read it, and neither may
 * import the other.
 */
export function mentionMatcher(subject: string): MentionMatcher {
  const core = (subject.match(PLAIN_RUNS) ?? []).reduce((a, b) => (b.length > a.length ? b : a), "");
  return { pattern: `${BEFORE}${[...subject].map(spellings).join("")}${AFTER}`, core: core.toLowerCase() };
}

/**
 * `text` mentions the subject (false for null). The substring test runs first and the expression only where it
 * passes: a CASE, because PostgreSQL may reorder an AND.
 */
export function mentionsSql(text: SQL, m: MentionMatcher): SQL {
  const regex = sql`coalesce(${text} ~* ${m.pattern}, false)`;
  return m.core ? sql`(case when strpos(lower(${text}), ${m.core}) > 0 then ${regex} else false end)` : regex;
}

/** What arrived for an event `b` (webhook_event_body) mentions the subject: raw body, headers or a stored payload. */
export const bodyMentionsSql = (m: MentionMatcher, b = "b"): SQL => {
  const col = (c: string) => sql.raw(`${b}.${c}`);
  return sql`(${mentionsSql(col("raw_body"), m)} or ${mentionsSql(sql`${col("headers")}::text`, m)}
              or ${mentionsSql(sql`${col("payload")}::text`, m)})`;
};

export interface MentionScan {
  /** Events whose raw body, headers or payload mention the subject, most recently stored first (roughly). */
  keys: StoredEventKey[];
  /** Events read. */
  read: number;
  /** Every event was read; false when the time budget or the match limit stopped it first. */
  complete: boolean;
  ms: number;
}

/** A heap position, `(block,offset)` as PostgreSQL writes a tid. */
type Tid = string;

interface ScanBatch {
  /** Rows in the block range, and of those the ones read (the byte budget may stop before the range's start). */
  ranged: number;
  kept: number;
  /** The lowest position read: where the next statement ends when the budget stopped this one. */
  low: Tid | null;
  hits: StoredEventKey[];
}

/**
 * Reads every stored body from the end of the table backwards (the most recently stored first, roughly), in
 * statements of SCAN_BLOCKS heap blocks and at most about SCAN_BYTES of raw body, so no statement holds the
 * database long: a TID range scan reads the table in its own order, with no index or join per row. An event stored
 * after the scan began (past the end it read first, or in space freed behind it) is not read: it is a later one.
 * Without a budget it reads every event (erasure).
 */
export async function scanMentions(
  db: Db | Tx,
  subject: string,
  opts: { budgetMs?: number; maxMatches?: number } = {},
): Promise<MentionScan> {
  const m = mentionMatcher(subject);
  const started = performance.now();
  const done = (complete: boolean) => ({ keys, read, complete, ms: Math.round(performance.now() - started) });
  const keys: StoredEventKey[] = [];
  let read = 0;
  const [size] = rowsOf<{ blocks: number }>(
    await db.execute(
      sql`select (pg_relation_size('webhook_event_body') / current_setting('block_size')::int)::int as blocks`,
    ),
  );
  let upper: Tid = `(${size?.blocks ?? 0},0)`;
  for (let block = size?.blocks ?? 0; block > 0 || upper !== "(0,0)";) {
    const from = Math.max(0, block - SCAN_BLOCKS);
    const [batch] = rowsOf<ScanBatch>(await db.execute(scanBatchQuery(m, `(${from},0)`, upper)));
    read += batch?.kept ?? 0;
    keys.push(...(batch?.hits ?? []));
    // The byte budget stopped inside the range: the next statement ends where this one's reading stopped.
    if (batch && batch.kept < batch.ranged && batch.low) upper = batch.low;
    else [block, upper] = [from, `(${from},0)`];
    if (opts.maxMatches !== undefined && keys.length > opts.maxMatches) return done(false);
    if (opts.budgetMs !== undefined && performance.now() - started >= opts.budgetMs)
      return done(block === 0 && upper === "(0,0)");
  }
  return done(true);
}

/** One statement of the scan, exported for the plan test: the rows stored in [lower, upper), the newest first. */
export function scanBatchQuery(m: MentionMatcher, lower: Tid, upper: Tid): SQL {
  // The budget is counted on sizes alone (octet_length reads a stored value's length, not the value); only the
  // bodies inside it are read, each once, by its position.
  return sql`
    with ranged as (
      select b.ctid as t, coalesce(octet_length(b.raw_body), 0) as bytes
      from webhook_event_body b
      where b.ctid >= ${lower}::tid and b.ctid < ${upper}::tid
    ), kept as (
      select z.t
      from (select r.t, sum(r.bytes) over (order by r.t desc) - r.bytes as before from ranged r) z
      where z.before < ${SCAN_BYTES}
    )
    select (select count(*) from ranged)::int as ranged,
           (select count(*) from kept)::int as kept,
           (select min(t) from kept)::text as low,
           coalesce((select json_agg(json_build_object('source', b.source, 'eventId', b.event_id) order by b.ctid desc)
                     from webhook_event_body b
                     where b.ctid = any(array(select t from kept)) and ${bodyMentionsSql(m)}), '[]'::json) as hits`;
}
