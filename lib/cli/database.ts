import { connectPostgres, type DbHandle } from "@/db/client";
import { migratePostgresUrl } from "@/db/migrate";
import { getEnv } from "@/lib/env";

/**
 * A maintenance command's database: DATABASE_URL migrated and a small pool without the app's statement bound
 * (their reads are whole-table by design). Undefined, after saying why on stderr, without DATABASE_URL: the
 * embedded database belongs to the app process (`embedded` says what to do there instead).
 */
export async function cliDatabase(command: string, embedded: string, max = 2): Promise<DbHandle | undefined> {
  const env = getEnv();
  if (!env.DATABASE_URL) {
    console.error(`${command}: DATABASE_URL is required (${embedded}).`);
    return undefined;
  }
  await migratePostgresUrl(env.DATABASE_URL);
  return connectPostgres(env.DATABASE_URL, { max });
}
