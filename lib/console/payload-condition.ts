import { sql, type SQL } from "drizzle-orm";
import { pgArray } from "@/db/pg-array";
import { ValidationError } from "@/lib/errors";
import { isPrototypeKey } from "@/lib/providers/options";
import { printable, textProblem } from "@/lib/ledger/params";

/**
 * A condition on an event's payload, typed by a person on the events page: a JSON path, an operator and a
 * value, e.g. `data.object.status = past_due` or `repository.full_name ~ acme/`. Parsed strictly here and
 * queried with jsonb operators whose path and value are bound parameters: no text of it reaches the SQL.
 */
export const CONDITION_OPERATORS = ["=", "!=", "~", "exists", "!exists"] as const;
export type ConditionOperator = (typeof CONDITION_OPERATORS)[number];

export interface PayloadCondition {
  /** Keys and array indexes from the payload's top, in order. */
  path: string[];
  op: ConditionOperator;
  /** The value compared with; absent for exists and !exists. */
  value?: string;
}

export const CONDITION_MAX_LENGTH = 600;
const MAX_SEGMENTS = 32;
const MAX_INDEX = 99_999;
const IDENT = /^[A-Za-z_$][A-Za-z0-9_$-]*/;
const INDEX = /^\[(0|[1-9][0-9]*)\]/;
const QUOTED = /^\["((?:[^"\\]|\\.)*)"\]/;
const OPERATOR = /^(!=|=|~|!exists\b|exists\b)/;

const HELP =
  "write a path, an operator and a value: data.object.status = past_due (= equals, != differs, ~ contains, " +
  "exists, !exists)";

const refuse = (message: string): never => {
  throw new ValidationError(`payload condition: ${message}`, "where");
};

function segmentOk(key: string): string {
  if (isPrototypeKey(key)) refuse(`"${key}" cannot be part of a path`);
  const problem = textProblem(key, 255);
  if (problem) refuse(`a path key ${problem}`);
  return key;
}

/** `["a key"]`'s text: a JSON string's escapes, so a key with a dot, a space or a quote can be named. */
function quotedKey(body: string): string {
  try {
    return JSON.parse(`"${body}"`) as string;
  } catch {
    return refuse(`["${printable(body, 32)}"] is not a quoted key (escape " and \\ with \\)`);
  }
}

/** The path at the start of `text`, and where it ends. */
function parsePath(text: string): { path: string[]; rest: string } {
  const path: string[] = [];
  let rest = text;
  for (;;) {
    const first = path.length === 0;
    const dot = !first && rest.startsWith(".");
    const at = dot ? rest.slice(1) : rest;
    const ident = first || dot ? IDENT.exec(at) : null;
    const index = dot ? null : INDEX.exec(at);
    const quoted = dot ? null : QUOTED.exec(at);
    if (ident) {
      path.push(segmentOk(ident[0]));
      rest = at.slice(ident[0].length);
    } else if (index) {
      if (first) refuse("a path starts with a key, not an index");
      if (Number(index[1]) > MAX_INDEX) refuse(`[${index[1]}] is past the largest index, ${MAX_INDEX}`);
      path.push(index[1]!);
      rest = at.slice(index[0].length);
    } else if (quoted) {
      path.push(segmentOk(quotedKey(quoted[1]!)));
      rest = at.slice(quoted[0].length);
    } else if (first) {
      return refuse(`it must start with a key (letters, digits, _, $ or -), not "${printable(rest, 16)}"; ${HELP}`);
    } else if (dot) {
      return refuse(`after "${path.join(".")}." comes a key, not "${printable(at, 16)}"`);
    } else break;
    if (path.length > MAX_SEGMENTS) refuse(`a path has at most ${MAX_SEGMENTS} parts`);
  }
  return { path, rest };
}

/** The value after `=`, `!=` or `~`: a JSON string in double quotes, or the rest of the line as it is. */
function parseValue(op: string, text: string): string {
  const raw = text.trim();
  if (raw === "") refuse(`give a value after ${op} (for an empty text, write "")`);
  let value = raw;
  if (raw.startsWith('"')) {
    try {
      value = JSON.parse(raw) as string;
    } catch {
      refuse(`${printable(raw, 32)} is not one quoted value (escape " and \\ with \\)`);
    }
    if (typeof value !== "string") refuse(`${printable(raw, 32)} is not one quoted value`);
  }
  const problem = textProblem(value, 500);
  if (problem) refuse(`the value ${problem}`);
  return value;
}

/** The condition, or a ValidationError whose message says what is wrong and how to write it. */
export function parseCondition(input: string): PayloadCondition {
  const text = input.trim();
  if (text === "") refuse(HELP);
  if (text.length > CONDITION_MAX_LENGTH) refuse(`it is longer than ${CONDITION_MAX_LENGTH} characters`);
  const { path, rest } = parsePath(text);
  const after = rest.trimStart();
  const op = OPERATOR.exec(after)?.[1] as ConditionOperator | undefined;
  if (!op)
    return refuse(
      after === ""
        ? `"${path.join(".")}" needs an operator and a value; ${HELP}`
        : `"${printable(after, 16)}" is not an operator; ${HELP}`,
    );
  const tail = after.slice(op.length);
  if (op === "exists" || op === "!exists") {
    if (tail.trim() !== "") refuse(`${op} takes no value, but "${printable(tail.trim(), 16)}" follows it`);
    return { path, op };
  }
  return { path, op, value: parseValue(op, tail) };
}

/** The condition as a person reads it back: `data.object.status = "past_due"`. */
export function conditionText(c: PayloadCondition): string {
  const path = c.path
    .map((k, i) =>
      /^\d+$/.test(k) && i > 0 ? `[${k}]` : IDENT.exec(k)?.[0] === k ? (i ? `.${k}` : k) : `[${JSON.stringify(k)}]`,
    )
    .join("");
  return c.value === undefined ? `${path} ${c.op}` : `${path} ${c.op} ${JSON.stringify(c.value)}`;
}

/**
 * The condition over `payload` (an SQL expression, db/payload.ts), as one boolean. The payload is read once
 * per row, in a sub-select: written out in each comparison, a body stored only as text was parsed as often.
 * A value is compared as text: a string as itself, a number or boolean as JSON writes it, null as "null",
 * an object or array as its JSON. `!=` and `~` need the path to be there; `!exists` finds where it is not.
 */
export function conditionSql(c: PayloadCondition, payload: SQL): SQL {
  const x = sql`x`;
  const text = sql`(case when jsonb_typeof(${x}) = 'null' then 'null' else ${x} #>> '{}' end)`;
  let test: SQL;
  switch (c.op) {
    case "exists":
      test = sql`${x} is not null`;
      break;
    case "!exists":
      test = sql`${x} is null`;
      break;
    case "=":
      test = sql`${text} = ${c.value}::text`;
      break;
    case "!=":
      test = sql`${text} <> ${c.value}::text`;
      break;
    case "~":
      test = sql`strpos(lower(${text}), lower(${c.value}::text)) > 0`;
      break;
  }
  return sql`coalesce((select ${test} from (select (${payload}) #> ${pgArray(c.path, "text")} as x) as p), false)`;
}
