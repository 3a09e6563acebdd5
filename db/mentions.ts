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

/**
 * "An event mentions a subject" is defined here, by what was stored (raw body, headers, payload), not by the
 * search index: subject_ids holds what the extractor found, which stops at 64 ids and 8 levels and knows shapes.
 * In db/ because both the customer view (lib/ledger) and erasure (lib/retention) read it, and neither may
 * import the other.
 */

/** A scan statement reads at most this many events, and stops adding raw bodies past this many bytes. */
const SCAN_ROWS = 1000;
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
  if (PLAIN.test(ch)) return ch;
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
  /** Events whose raw body, headers or payload mention the subject, newest received first. */
  keys: StoredEventKey[];
  /** Events read. */
  read: number;
  /** Every event was read; false when the time budget or the match limit stopped it first. */
  complete: boolean;
  ms: number;
}

interface ScanRow extends StoredEventKey {
  at: string;
  hit: boolean;
  n: number;
  last: boolean;
}

/**
 * Reads stored events newest first, in statements of at most SCAN_ROWS events and about SCAN_BYTES of raw body
 * each, so no statement holds the database long. Without a budget it reads every event (erasure).
 */
export async function scanMentions(
  db: Db | Tx,
  subject: string,
  opts: { budgetMs?: number; maxMatches?: number } = {},
): Promise<MentionScan> {
  const m = mentionMatcher(subject);
  const started = performance.now();
  const keys: StoredEventKey[] = [];
  let read = 0;
  let after: ScanRow | undefined;
  for (;;) {
    const rows = rowsOf<ScanRow>(await db.execute(scanBatchQuery(m, after)));
    const n = rows[0]?.n ?? 0;
    if (n === 0) return { keys, read, complete: true, ms: Math.round(performance.now() - started) };
    read += n;
    for (const r of rows) if (r.hit) keys.push({ source: r.source, eventId: r.eventId });
    after = rows.find((r) => r.last);
    const overBudget = opts.budgetMs !== undefined && performance.now() - started >= opts.budgetMs;
    if (overBudget || (opts.maxMatches !== undefined && keys.length > opts.maxMatches))
      return { keys, read, complete: false, ms: Math.round(performance.now() - started) };
  }
}

/** One statement of the scan, exported for the EXPLAIN test: the received index, then each body by its key. */
export function scanBatchQuery(m: MentionMatcher, after?: Pick<ScanRow, "at" | "eventId" | "source">): SQL {
  const from = after
    ? sql`where (s.received_at, s.event_id, s.source) < (${after.at}::timestamptz, ${after.eventId}, ${after.source})`
    : sql``;
  return sql`
    with page as (
      select s.source, s.event_id, s.received_at
      from webhook_event_state s
      ${from}
      order by s.received_at desc, s.event_id desc, s.source desc
      limit ${SCAN_ROWS}
    ), sized as (
      select p.source, p.event_id, p.received_at, b.raw_body, b.headers, b.payload,
             sum(coalesce(octet_length(b.raw_body), 0))
               over (order by p.received_at desc, p.event_id desc, p.source desc) as upto,
             coalesce(octet_length(b.raw_body), 0) as bytes
      from page p
      left join webhook_event_body b on b.source = p.source and b.event_id = p.event_id
    ), kept as (
      select * from sized b where b.upto - b.bytes < ${SCAN_BYTES}
    ), judged as (
      select b.source, b.event_id, b.received_at, ${bodyMentionsSql(m)} as hit,
             count(*) over ()::int as n,
             row_number() over (order by b.received_at, b.event_id, b.source) = 1 as last
      from kept b
    )
    select source, event_id as "eventId",
           to_char(received_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as at, hit, n, last
    from judged
    where hit or last`;
}
