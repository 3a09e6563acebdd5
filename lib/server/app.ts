import { closeDb } from "@/db";
import type { Lifecycle } from "@/lib/lifecycle";
import { receiverDepsFromEnv } from "@/lib/receiver/from-env";
import { stopEmbeddedReplays } from "@/lib/replay/embedded";
import { SourcesConfigError } from "@/lib/sources/declared";
import { refusalsFromEnv, sourcesFromEnv } from "@/lib/sources/from-env";
import { SecretKeyError } from "@/lib/sources/secret-box";
import { stopEmbeddedWorker } from "@/lib/worker/embedded";

/**
 * Reads the declared sources (the six *_WEBHOOK_SECRET variables and SOURCES_FILE) before anything is
 * served: a bad entry stops the process with a message naming it, instead of refusing deliveries later.
 */
export function checkSourcesAtStart(log: (message: string) => void): void {
  try {
    const directory = sourcesFromEnv();
    void directory.list().catch(() => undefined); // warm the console's sources; a database still down is fine
  } catch (err) {
    if (!(err instanceof SourcesConfigError || err instanceof SecretKeyError)) throw err;
    log(err.message);
    process.exit(1);
  }
}

/** What an app process runs besides its server, in the order it must stop: work first, then the pools. */
export function registerAppStops(lifecycle: Lifecycle): void {
  lifecycle.onStop("work", "embedded worker", stopEmbeddedWorker);
  lifecycle.onStop("work", "replay drivers", stopEmbeddedReplays);
  lifecycle.onStop("work", "refusal log", () => refusalsFromEnv().close());
  lifecycle.onStop("connections", "database pools", closeDb);
  lifecycle.onStop("connections", "dedup cache", async () => {
    await receiverDepsFromEnv().dedup?.close();
  });
}
