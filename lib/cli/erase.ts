import { userInfo } from "node:os";
import { ZodError } from "zod";
import { EnvError } from "@/lib/env";
import { describeError, expectedErrorMessage } from "@/lib/errors";
import { countSubjectEvents, eraseSubjectAs } from "@/lib/retention/erase";
import { remainingWords } from "@/lib/retention/erase-verify";
import { cliArgs } from "./args";
import { cliDatabase } from "./database";

const USAGE = `usage: npm run erase -- --subject <customer id or email> [--reference <ticket>] [--dry-run]
Redacts every event whose raw body, headers or payload mention the subject (the search index's, and those a read
of every stored body finds), audited as cli:<you>. --dry-run only counts. One JSON line on stdout.`;

/**
 * `npm run erase`: exit 0 done, 1 failed (or not done: a stored copy still holds the subject, named on stderr),
 * 2 bad usage, configuration or a refused subject.
 */
async function main(): Promise<number> {
  const values = cliArgs("erase", USAGE, {
    subject: { type: "string" },
    reference: { type: "string" },
    "dry-run": { type: "boolean", default: false },
  });
  if (typeof values === "number") return values;
  if (!values.subject) {
    console.error(`erase: --subject is required\n${USAGE}`);
    return 2;
  }
  const handle = await cliDatabase("erase", "on the embedded database, erase from the console's Erasure page");
  if (!handle) return 2;
  const input = { subject: values.subject, reference: values.reference };
  try {
    if (values["dry-run"]) {
      const counts = await countSubjectEvents(handle.db, input);
      console.log(JSON.stringify({ dryRun: true, ...counts }));
      return 0;
    }
    const result = await eraseSubjectAs({ db: handle.db, who: `cli:${userInfo().username}`, input });
    console.log(JSON.stringify({ dryRun: false, erased: result.events, ...result }));
    if (result.done) return 0;
    console.error(
      `erase: not done: the subject is still stored in ${remainingWords(result.remaining)}; audited as an error`,
    );
    return 1;
  } catch (err) {
    const expected = err instanceof ZodError ? err.issues.map((i) => i.message).join("; ") : expectedErrorMessage(err);
    if (expected === undefined) throw err;
    console.error(`erase: ${expected}`);
    return 2;
  } finally {
    await handle.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`erase: ${err instanceof EnvError ? err.message : describeError(err)}`);
    process.exit(err instanceof EnvError ? 2 : 1);
  },
);
