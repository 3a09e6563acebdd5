import { closeDb } from "@/db";
import type { Lifecycle } from "@/lib/lifecycle";
import { receiverDepsFromEnv } from "@/lib/receiver/from-env";
import { stopEmbeddedReplays } from "@/lib/replay/embedded";
import { stopEmbeddedWorker } from "@/lib/worker/embedded";

/** What an app process runs besides its server, in the order it must stop: work first, then the pools. */
export function registerAppStops(lifecycle: Lifecycle): void {
  lifecycle.onStop("work", "embedded worker", stopEmbeddedWorker);
  lifecycle.onStop("work", "replay drivers", stopEmbeddedReplays);
  lifecycle.onStop("connections", "database pools", closeDb);
  lifecycle.onStop("connections", "dedup cache", async () => {
    await receiverDepsFromEnv().dedup?.close();
  });
}
