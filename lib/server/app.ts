import { closeDb, getDbHandle } from "@/db";
import { bootstrapAtStartup } from "@/lib/auth/bootstrap";
import { appBaseURL } from "@/lib/auth/runtime";
import { getEnv } from "@/lib/env";
import { describeError } from "@/lib/errors";
import type { Lifecycle } from "@/lib/lifecycle";
import { DestinationsConfigError } from "@/lib/forward/destinations";
import { declaredDestinationsFromEnv } from "@/lib/forward/from-env";
import type { Logger } from "@/lib/log";
import { receiverDepsFromEnv } from "@/lib/receiver/from-env";
import { SourcesConfigError } from "@/lib/sources/declared";
import { refusalsFromEnv, sourcesFromEnv } from "@/lib/sources/from-env";
import { SecretKeyError } from "@/lib/sources/secret-box";

/**
 * Reads the declared sources (the six *_WEBHOOK_SECRET variables and SOURCES_FILE) and DESTINATIONS_FILE before anything is
 * served: a bad entry stops the process with a message naming it, instead of refusing deliveries later.
 */
export function checkSourcesAtStart(log: (message: string) => void): void {
  try {
    const directory = sourcesFromEnv();
    void directory.list().catch(() => undefined); // warm the console's sources; a database still down is fine
    declaredDestinationsFromEnv();
  } catch (err) {
    if (!(err instanceof SourcesConfigError || err instanceof SecretKeyError || err instanceof DestinationsConfigError))
      throw err;
    log(err.message);
    process.exit(1);
  }
}

/**
 * At start rather than on the first request: migrate (or open the embedded database) and, for a process with the
 * console, create the first admin (`admin`; `demo` is the quick start's, to say where the admin came from). A
 * database still down is logged, not fatal: health answers 503 and each request tries the database again.
 */
export async function prepareDatabase(
  log: Logger,
  admin?: { demo?: { adminEmail: string; adminPassword: string; file: string } },
): Promise<void> {
  try {
    const handle = await getDbHandle();
    log.info(`database ready (${handle.kind})`);
    if (!admin) return;
    const env = getEnv();
    const line = await bootstrapAtStartup(handle.db, {
      email: env.ADMIN_EMAIL,
      password: env.ADMIN_PASSWORD,
      baseURL: appBaseURL(),
      demo: admin.demo,
    });
    if (line) log.info(line);
  } catch (err) {
    log.error({ err }, `database not ready: ${describeError(err)}`);
  }
}

/** What an app process holds besides its server and its work (lib/server/start-process-work.ts), stopped after them. */
export function registerAppStops(lifecycle: Lifecycle): void {
  lifecycle.onStop("work", "refusal log", () => refusalsFromEnv().close());
  lifecycle.onStop("connections", "database pools", closeDb);
  lifecycle.onStop("connections", "dedup cache", async () => {
    await receiverDepsFromEnv().dedup?.close();
  });
}
