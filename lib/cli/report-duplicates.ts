import { parseArgs } from "node:util";
import { closeDb, getDb } from "@/db";
import { describeError } from "@/lib/errors";
import { duplicateReport, formatDuplicateReport, parseSince } from "@/lib/console/duplicates";

/** `npm run report:duplicates -- [--since 24h] [--until ISO] [--json]` */
async function main() {
  const { values } = parseArgs({
    options: {
      since: { type: "string", default: "24h" },
      until: { type: "string" },
      json: { type: "boolean", default: false },
    },
  });
  const window = { since: parseSince(values.since), until: values.until ? parseSince(values.until) : new Date() };
  const rows = await duplicateReport(await getDb(), window);
  console.log(values.json ? JSON.stringify(rows) : formatDuplicateReport(rows, window));
  await closeDb();
}

main().catch((err: unknown) => {
  console.error("report failed:", describeError(err));
  process.exit(1);
});
