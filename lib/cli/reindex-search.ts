import { EnvError } from "@/lib/env";
import { describeError } from "@/lib/errors";
import { backfillSubjectTerms } from "@/lib/ledger/subject-terms";
import type { EventKey } from "@/lib/ledger/types";
import { cliArgs } from "./args";
import { cliDatabase } from "./database";

const USAGE = `usage: npm run reindex-search [-- --after <source>/<event id>] [--page <n>]
Fills the search directory (prefix and name search: subject_term) from every event's payload, in primary-key
order, a page at a time (default 500). For events the ledger held before the directory existed (migration 0016),
or after restoring a backup without it. Re-runnable; what is there already is kept. Ctrl-C stops after the page
in flight and prints where to resume (--after). Progress on stderr, one JSON line on stdout.`;

function parseAfter(value: string | undefined): EventKey | undefined | "bad" {
  if (value === undefined) return undefined;
  const slash = value.indexOf("/");
  if (slash <= 0 || slash === value.length - 1) return "bad";
  return { source: value.slice(0, slash), eventId: value.slice(slash + 1) };
}

/** `npm run reindex-search`: exit 0 done, 1 failed, 2 bad usage or configuration, 130 stopped by a signal. */
async function main(): Promise<number> {
  const values = cliArgs("reindex-search", USAGE, {
    after: { type: "string" },
    page: { type: "string", default: "500" },
  });
  if (typeof values === "number") return values;
  const after = parseAfter(values.after);
  const page = Number(values.page);
  if (after === "bad" || !Number.isInteger(page) || page < 1 || page > 10_000) {
    console.error(`reindex-search: --after is <source>/<event id>, --page a whole number 1-10000\n${USAGE}`);
    return 2;
  }
  const handle = await cliDatabase("reindex-search", "the embedded database belongs to the app process");
  if (!handle) return 2;
  let stopped = false;
  const onSignal = () => {
    stopped = true;
    console.error("[reindex-search] stopping after the page in flight");
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  const started = performance.now();
  let events = 0;
  let next: EventKey | undefined = after;
  let lastLog = 0;
  try {
    do {
      const r = await backfillSubjectTerms(handle.db, { after: next, limit: page });
      events += r.events;
      next = r.next;
      if (performance.now() - lastLog > 2000) {
        lastLog = performance.now();
        console.error(`[reindex-search] ${events} events read`);
      }
    } while (next && !stopped);
    const resume = stopped && next ? `${next.source}/${next.eventId}` : undefined;
    const seconds = Number(((performance.now() - started) / 1000).toFixed(1));
    console.log(JSON.stringify({ events, seconds, ...(resume ? { stopped: true, resumeAfter: resume } : {}) }));
    return resume ? 130 : 0;
  } finally {
    await handle.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`reindex-search: ${err instanceof EnvError ? err.message : describeError(err)}`);
    process.exit(err instanceof EnvError ? 2 : 1);
  },
);
