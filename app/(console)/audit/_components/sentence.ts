import { plural } from "@/lib/format/words";
import { isSourceSlug } from "@/lib/ledger/params";

/** A piece of an audit sentence: words, a name (a link where the thing has a page), or a time (shown as a date). */
export type Part = string | { text: string; href?: string; code?: boolean } | { at: string };

export interface AuditRowView {
  action: string;
  target: string;
  detail: Record<string, unknown>;
  result: "ok" | "refused" | "error";
}

interface Ctx {
  row: AuditRowView;
  /** The target after its kind ("event:stripe/evt_1" → "stripe/evt_1"). */
  rest: string;
  d: Record<string, unknown>;
  canManageUsers: boolean;
}

/** Past tense when it happened, "tried to …" when it was refused or failed: the same words after the verb. */
type Said = { did: Part[]; tried: Part[] } | { always: Part[] };
const verb = (past: string, present: string, ...rest: Part[]): Said => ({
  did: [past, ...rest],
  tried: ["tried to ", present, ...rest],
});
const always = (...parts: Part[]): Said => ({ always: parts });

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})$/;
const LIST_MAX = 5;
const str = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);
const when = (v: unknown): Part => (typeof v === "string" && ISO.test(v) ? { at: v } : String(v));
const code = (text: string): Part => ({ text, code: true });

/** "stripe/evt_1" as a link to the event's page (the form every verb writes: lib/console/requeue.ts). */
export function eventPart(key: string): Part {
  const slash = key.indexOf("/");
  const source = key.slice(0, slash);
  const id = key.slice(slash + 1);
  if (slash <= 0 || !id || !isSourceSlug(source)) return code(key);
  return { text: key, code: true, href: `/events/${source}/${encodeURIComponent(id)}` };
}

/** Up to five names, then how many more: "a, b and 3 more". */
function list(items: Part[]): Part[] {
  const shown = items.slice(0, LIST_MAX);
  const out: Part[] = [];
  shown.forEach((p, i) => {
    if (i > 0) out.push(i === shown.length - 1 && items.length <= LIST_MAX ? " and " : ", ");
    out.push(p);
  });
  if (items.length > LIST_MAX) out.push(` and ${items.length - LIST_MAX} more`);
  return out;
}

const source = (slug: string): Part =>
  isSourceSlug(slug) ? { text: slug, code: true, href: `/sources/${slug}` } : code(slug);
const user = (c: Ctx, email = c.rest): Part => ({ text: email, href: c.canManageUsers ? "/users" : undefined });
const destination = (name: string): Part => ({ text: name, code: true, href: "/destinations" });
const run = (c: Ctx): Part => ({ text: `#${c.rest}`, href: "/replays" });
const rule = (c: Ctx): Part => ({ text: c.rest, code: true, href: "/alerts" });
const ip = (c: Ctx): Part[] => (str(c.d.ip) ? [" from ", code(str(c.d.ip)!)] : []);
const times = (c: Ctx): Part[] =>
  num(c.d.count)! > 1 ? [` (${plural(num(c.d.count)!, "attempt")} in that minute)`] : [];

/** A requeue's filter (lib/console/event-filter.ts) in words. */
function filterWords(filter: unknown): Part[] {
  const f = typeof filter === "object" && filter !== null ? (filter as Record<string, unknown>) : {};
  const parts: Part[][] = [];
  const any = (name: string, values: string[]) => {
    if (values.length) parts.push([`${name} `, ...list(values.map(code)).map((p) => (p === " and " ? " or " : p))]);
  };
  any("source", strings(f.source));
  any("status", strings(f.status));
  any("type", strings(f.type));
  if (str(f.q)) parts.push(["search ", code(str(f.q)!)]);
  if (f.from !== undefined && f.from !== null) parts.push(["received from ", when(f.from)]);
  if (f.to !== undefined && f.to !== null) parts.push(["received until ", when(f.to)]);
  if (parts.length === 0) return [" (no filter: every failed or dead event)"];
  return [" matching ", ...parts.flatMap((p, i) => (i === 0 ? p : [", ", ...p]))];
}

function deadDecision(c: Ctx, word: string): Said {
  const keys = strings(c.d.keys);
  const notDead = strings(c.d.notDead);
  const note = str(c.d.note);
  // What was decided: the selection less the events that were no longer dead (requeued or decided meanwhile).
  const which = (chosen: string[]): Part[] =>
    chosen.length === 1
      ? ["dead event ", eventPart(chosen[0]!)]
      : [`${plural(chosen.length, "dead event")}: `, ...list(chosen.map(eventPart))];
  const rest: Part[] = [` ${word}`, ...(note ? [`: “${note}”`] : [])];
  const skipped: Part[] = notDead.length
    ? ["; ", ...list(notDead.map(eventPart)), notDead.length === 1 ? " was" : " were", " no longer dead"]
    : [];
  return {
    did: ["marked ", ...which(keys.filter((k) => !notDead.includes(k))), ...rest, ...skipped],
    tried: ["tried to mark ", ...which(keys), ...rest],
  };
}

function replay(c: Ctx, past: string, present: string): Said {
  const slug = str(c.d.source) ?? (/^\d+$/.test(c.rest) ? undefined : c.rest);
  const types = strings(c.d.types);
  return verb(
    past,
    present,
    " a replay",
    ...(slug ? [" of ", source(slug)] : []),
    ...(/^\d+$/.test(c.rest) ? [" (run ", run(c), ")"] : []),
    ...(c.d.since !== undefined ? [" from ", when(c.d.since)] : []),
    ...(c.d.until === "now" ? [" until now"] : c.d.until !== undefined ? [" to ", when(c.d.until)] : []),
    ...(types.length ? [", types ", ...list(types.map(code))] : []),
  );
}

const SENTENCES: Record<string, (c: Ctx) => Said> = {
  "auth.sign-in": (c) => always("signed in", ...ip(c)),
  "auth.sign-out": (c) => always("signed out", ...ip(c)),
  "auth.sign-in-failed": (c) => always("a sign-in as ", user(c), " was refused", ...ip(c)),
  "auth.sign-in-throttled": (c) =>
    always("sign-ins as ", user(c), " were held back after too many failures", ...ip(c), ...times(c)),
  "auth.sign-in-rate-limited": (c) =>
    always(
      "sign-ins from ",
      str(c.d.ip) ? code(str(c.d.ip)!) : "an unknown address",
      " were held back: too many from one address",
      ...times(c),
    ),
  "users.bootstrap-admin": (c) => always("created the first admin, ", user(c), ", from ADMIN_EMAIL"),
  "users.setup-admin": (c) => always("created the first admin, ", user(c), ", on the setup page"),
  "users.create": (c) => verb("added", "add", " user ", user(c), ...(str(c.d.role) ? [" as ", str(c.d.role)!] : [])),
  "users.set-role": (c) =>
    verb(
      "changed",
      "change",
      " the role of ",
      user(c),
      ...(str(c.d.from) && str(c.d.to) ? [" from ", str(c.d.from)!, " to ", str(c.d.to)!] : []),
    ),
  "users.enable": (c) => verb("enabled", "enable", " ", user(c)),
  "users.disable": (c) =>
    verb(
      "disabled",
      "disable",
      " ",
      user(c),
      ...(num(c.d.sessionsEnded) !== undefined ? [`, ending ${plural(num(c.d.sessionsEnded)!, "session")}`] : []),
    ),
  "users.change-password": () => verb("changed", "change", " their own password"),
  "events.requeue": (c) => verb("requeued", "requeue", " event ", eventPart(c.rest)),
  "events.process-now": (c) => verb("processed", "process", " event ", eventPart(c.rest), " at once"),
  "events.resolve-dead": (c) => deadDecision(c, "resolved by hand"),
  "events.ignore-dead": (c) => deadDecision(c, "ignored"),
  "events.requeue-bulk": (c) => {
    const group = typeof c.d.group === "object" && c.d.group !== null ? (c.d.group as Record<string, unknown>) : {};
    const n = num(c.d.requeued);
    return verb(
      "requeued",
      "requeue",
      n !== undefined ? ` ${plural(n, "event")}` : " the events",
      ...filterWords(c.d.filter),
      ...(str(group.pattern) ? [" whose error reads ", code(str(group.pattern)!)] : []),
      ...(num(c.d.confirmed) !== undefined && n === undefined ? [` (${num(c.d.confirmed)} confirmed)`] : []),
    );
  },
  "events.apply-tie": (c) => {
    const slug = c.rest.slice(0, c.rest.indexOf("/"));
    return verb(
      "applied",
      "apply",
      " event ",
      eventPart(c.rest),
      " by hand",
      ...(str(c.d.replaced) ? [" over the tied event ", eventPart(`${slug}/${str(c.d.replaced)}`)] : []),
      ...(str(c.d.entity) ? [" on ", code(str(c.d.entity)!)] : []),
    );
  },
  "events.export": (c) => verb("downloaded", "download", " event ", eventPart(c.rest), " as JSON"),
  "subjects.bundle": (c) => {
    const events = strings(c.d.events);
    return verb(
      "downloaded",
      "download",
      ` a dispute bundle${str(c.d.format) ? ` (${str(c.d.format)})` : ""} of ${plural(events.length, "event")}`,
      ...(events.length ? [": ", ...list(events.map(eventPart))] : []),
    );
  },
  "subjects.erase": (c) =>
    verb(
      "erased",
      "erase",
      " a customer's data",
      ...(num(c.d.events) !== undefined ? [` from ${plural(num(c.d.events)!, "event")}`] : []),
      ...(str(c.d.reference) ? [" (request ", code(str(c.d.reference)!), ")"] : []),
    ),
  "replay.start": (c) => replay(c, "started", "start"),
  "replay.preview": (c) => replay(c, "previewed", "preview"),
  "replay.resume": (c) => verb("resumed", "resume", " replay run ", run(c)),
  "replay.cancel": (c) => verb("cancelled", "cancel", " replay run ", run(c)),
  "sources.create": (c) =>
    verb(
      "created",
      "create",
      " source ",
      source(c.rest),
      ...(str(c.d.provider) ? [` (${str(c.d.provider)})`] : []),
      ...(str(c.d.fingerprint)
        ? [" with ", c.d.generated ? "a generated" : "a given", " secret ", code(str(c.d.fingerprint)!)]
        : []),
    ),
  "sources.add-secret": (c) =>
    verb(
      "added",
      "add",
      " a secret",
      ...(str(c.d.fingerprint) ? [" ", code(str(c.d.fingerprint)!)] : []),
      " to source ",
      source(c.rest),
      ...(num(c.d.retiring)! > 0 && c.d.retireOthersAt
        ? [
            `; ${plural(num(c.d.retiring)!, "older secret")} ${num(c.d.retiring) === 1 ? "stops" : "stop"} verifying at `,
            when(c.d.retireOthersAt),
          ]
        : []),
    ),
  "sources.expire-secret": (c) =>
    verb(
      "set",
      "set",
      " secret ",
      ...(str(c.d.fingerprint) ? [code(str(c.d.fingerprint)!), " of "] : []),
      "source ",
      source(c.rest),
      ...(c.d.expiresAt ? [" to stop verifying at ", when(c.d.expiresAt)] : [" to expire"]),
    ),
  "sources.set-state": (c) =>
    verb(
      "changed",
      "change",
      " source ",
      source(c.rest),
      ...(str(c.d.from) && str(c.d.to) ? [" from ", str(c.d.from)!, " to ", str(c.d.to)!] : []),
    ),
  "sources.test-event": (c) =>
    verb(
      "sent",
      "send",
      " a test event to source ",
      source(c.rest),
      ...(num(c.d.status) !== undefined ? [`: the receiver answered ${num(c.d.status)}`] : []),
      ...(num(c.d.status) === 200 && str(c.d.eventId)
        ? [", stored as ", eventPart(`${c.rest}/${str(c.d.eventId)}`)]
        : []),
    ),
  "destinations.create": (c) =>
    verb(
      "created",
      "create",
      " destination ",
      destination(c.rest),
      ...(str(c.d.host) ? [" to ", code(str(c.d.host)!)] : []),
      ...(str(c.d.mode) ? [` (${str(c.d.mode)}, ${str(c.d.format) ?? "standard"})`] : []),
      ...(str(c.d.fingerprint) ? [" with secret ", code(str(c.d.fingerprint)!)] : []),
    ),
  "destinations.update": (c) =>
    verb(
      "changed",
      "change",
      " destination ",
      destination(c.rest),
      ...(str(c.d.host) ? [": ", code(str(c.d.host)!)] : []),
      ...(str(c.d.mode) ? [`, ${str(c.d.mode)}`] : []),
    ),
  "destinations.set-state": (c) =>
    verb(
      "changed",
      "change",
      " destination ",
      destination(c.rest),
      ...(str(c.d.from) && str(c.d.to) ? [" from ", str(c.d.from)!, " to ", str(c.d.to)!] : []),
    ),
  "destinations.rotate-secret": (c) =>
    verb(
      "rotated",
      "rotate",
      " the secret of destination ",
      destination(c.rest),
      ...(str(c.d.fingerprint) ? [" to ", code(str(c.d.fingerprint)!)] : []),
      ...(num(c.d.overlapHours) !== undefined
        ? [`; the old one signs for ${plural(num(c.d.overlapHours)!, "hour")}`]
        : []),
    ),
  "destinations.test": (c) =>
    verb(
      "sent",
      "send",
      " a test delivery to destination ",
      destination(c.rest),
      ...(num(c.d.status) !== undefined ? [`: it answered ${num(c.d.status)}`] : []),
    ),
  "forwards.requeue": (c) => {
    const [dest = "", ...event] = c.rest.split("/");
    return verb("requeued", "requeue", " the forward of ", eventPart(event.join("/")), " to ", destination(dest));
  },
  "forwards.requeue-bulk": (c) =>
    verb(
      "requeued",
      "requeue",
      num(c.d.requeued) !== undefined ? ` ${plural(num(c.d.requeued)!, "forward")}` : " forwards",
      " to destination ",
      destination(c.rest),
      ...(strings(c.d.statuses).length ? [" that were ", ...list(strings(c.d.statuses).map(code))] : []),
    ),
  "forwards.replay": (c) =>
    verb(
      "replayed",
      "replay",
      " events",
      ...(c.d.from !== undefined ? [" from ", when(c.d.from)] : []),
      ...(c.d.to !== undefined ? [" to ", when(c.d.to)] : []),
      " to destination ",
      destination(c.rest),
      ...(num(c.d.queued) !== undefined ? [`: ${plural(num(c.d.queued)!, "forward")} queued`] : []),
    ),
  "alerts.set-rule": (c) =>
    verb(
      "set",
      "set",
      " alert rule ",
      rule(c),
      ...(c.d.enabled === false ? [" off"] : c.d.enabled === true ? [" on"] : []),
      ...(num(c.d.threshold) !== undefined ? [` at ${num(c.d.threshold)!.toLocaleString("en")}`] : []),
    ),
  "alerts.reset-rule": (c) => verb("reset", "reset", " alert rule ", rule(c), " to the deploy's default"),
};

/** The actions the sentences know: a test checks every action the code writes is among them. */
export const DESCRIBED_ACTIONS = Object.keys(SENTENCES);

const capital = (parts: Part[]): Part[] => {
  const [first, ...rest] = parts;
  return typeof first === "string" ? [first.charAt(0).toUpperCase() + first.slice(1), ...rest] : parts;
};

/**
 * What an audit row says was done, in words, with links to the event, source or user it concerns. An action
 * this version does not know (a newer writer, a removed verb) reads as its name and its detail.
 */
export function describeAudit(row: AuditRowView, opts: { canManageUsers: boolean }): Part[] {
  const colon = row.target.indexOf(":");
  const ctx: Ctx = {
    row,
    rest: colon > 0 ? row.target.slice(colon + 1) : row.target,
    d: row.detail,
    canManageUsers: opts.canManageUsers,
  };
  const sentence = SENTENCES[row.action];
  if (!sentence) {
    const detail = Object.keys(row.detail).length ? [": ", JSON.stringify(row.detail).slice(0, 300)] : [];
    return [code(row.action), " ", code(row.target), ...detail];
  }
  const said = sentence(ctx);
  return capital("always" in said ? said.always : row.result === "ok" ? said.did : said.tried);
}

/** The sentence as plain text (for tests and titles). */
export const sentenceText = (parts: Part[]): string =>
  parts.map((p) => (typeof p === "string" ? p : "at" in p ? p.at : p.text)).join("");
