import { getEnv } from "@/lib/env";
import { describeError } from "@/lib/errors";
import { connectPglite } from "./client";
import { migratePglite, migratePostgresUrl } from "./migrate";

/** `npm run db:migrate`: the same migration the app runs at start-up, for deploy pipelines. */
async function main() {
  const env = getEnv();
  if (env.DATABASE_URL) {
    await migratePostgresUrl(env.DATABASE_URL);
    console.log("migrated (postgres)");
  } else {
    const handle = await connectPglite(env.PGLITE_DIR);
    await migratePglite(handle);
    await handle.close();
    console.log(`migrated (embedded, ${env.PGLITE_DIR})`);
  }
}

main().catch((err: unknown) => {
  console.error("migration failed:", describeError(err));
  process.exit(1);
});
