import { userInfo } from "node:os";
import { parseArgs } from "node:util";
import { ZodError } from "zod";
import { connectPostgres } from "@/db/client";
import { migratePostgresUrl } from "@/db/migrate";
import { EnvError, getEnv } from "@/lib/env";
import { describeError, expectedErrorMessage } from "@/lib/errors";
import { countSubjectEvents, eraseSubjectAs } from "@/lib/retention/erase";

const USAGE = `usage: npm run erase -- --subject <customer id or email> [--reference <ticket>] [--dry-run]
Redacts every event that mentions the subject (payload, raw body, headers, timeline values), audited as cli:<you>.
--dry-run only counts. One JSON line on stdout.`;

/** `npm run erase`: exit 0 done, 1 failed, 2 bad usage, configuration or a refused subject. */
async function main(): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: process.argv.slice(2),
      options: {
        subject: { type: "string" },
        reference: { type: "string" },
        "dry-run": { type: "boolean", default: false },
        help: { type: "boolean", default: false },
      },
    }));
  } catch (err) {
    console.error(`erase: ${describeError(err)}\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    console.error(USAGE);
    return 0;
  }
  if (!values.subject) {
    console.error(`erase: --subject is required\n${USAGE}`);
    return 2;
  }
  const env = getEnv();
  if (!env.DATABASE_URL) {
    console.error("erase: DATABASE_URL is required (on the embedded database, erase from the console's Erasure page).");
    return 2;
  }
  await migratePostgresUrl(env.DATABASE_URL);
  const handle = connectPostgres(env.DATABASE_URL, { max: 2, prepare: env.DATABASE_PREPARE });
  const input = { subject: values.subject, reference: values.reference };
  try {
    if (values["dry-run"]) {
      const counts = await countSubjectEvents(handle.db, input);
      console.log(JSON.stringify({ dryRun: true, ...counts }));
      return 0;
    }
    const counts = await eraseSubjectAs({ db: handle.db, who: `cli:${userInfo().username}`, input });
    console.log(JSON.stringify({ dryRun: false, erased: counts.events, ...counts }));
    return 0;
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
