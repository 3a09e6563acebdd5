import type { Db } from "@/db/client";
import { envVar, getEnv } from "@/lib/env";
import { componentLogger } from "@/lib/log";
import { getMetrics } from "@/lib/metrics";
import { secretBoxFromEnv, sourcesFromEnv } from "@/lib/sources/from-env";
import { declaredDestinations, syncDeclaredDestinations, type DeclaredDestination } from "./destinations";
import { createForwarder, type Forwarder, type ForwarderOptions } from "./forwarder";

const logger = componentLogger("forward");

/** DESTINATIONS_FILE, read and checked (throws DestinationsConfigError naming the entry). */
export function declaredDestinationsFromEnv(): DeclaredDestination[] {
  return declaredDestinations(getEnv().DESTINATIONS_FILE, { envVar });
}

/**
 * This process's forwarder, started beside its worker: the declared destinations are written to the table first
 * (a bad file was refused at start-up; a database still down is retried by the forwarder's rounds).
 */
export function startForwarderFromEnv(
  getDb: () => Promise<Db>,
  extra: Pick<ForwarderOptions, "log" | "onAttempt"> = {},
): Forwarder {
  const declared = declaredDestinationsFromEnv();
  let synced = declared.length === 0;
  const forwarder = createForwarder({
    getDb: async () => {
      const db = await getDb();
      if (!synced) {
        await syncDeclaredDestinations(db, declared);
        synced = true;
      }
      return db;
    },
    sources: sourcesFromEnv(),
    envVar,
    box: secretBoxFromEnv(),
    allowPrivate: getEnv().FORWARD_ALLOW_PRIVATE,
    onAttempt: (d, f, result, recorded) => {
      const metrics = getMetrics();
      metrics.forwards.inc({ destination: d.name, outcome: recorded.replaceAll("-", "_") });
      if (result.durationMs > 0) metrics.forwardDuration.observe({ destination: d.name }, result.durationMs / 1000);
      if (!result.ok)
        logger.warn(
          {
            destination: d.name,
            source: f.source,
            eventId: f.eventId,
            attempt: f.attempt,
            status: result.status,
            recorded,
          },
          `forward of ${f.source}/${f.eventId} to ${d.name} failed (attempt ${f.attempt}, ${recorded}): ${result.error}`,
        );
      extra.onAttempt?.(d, f, result, recorded);
    },
    log: extra.log,
  });
  forwarder.start();
  return forwarder;
}
