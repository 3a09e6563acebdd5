import { getEnv } from "@/lib/env";
import { createBodyBudget, type BodyBudget } from "./body-budget";

/** The bounds on a delivery's body apart from its size (ReceiverConfig.maxBytes), the same for every host. */
export interface IntakeLimits {
  /** The whole body must have arrived this long after the headers (WEBHOOK_BODY_TIMEOUT_MS); else 408. */
  bodyTimeoutMs: number;
  /** Bytes of not-yet-verified bodies held across every connection (WEBHOOK_UNVERIFIED_MAX_BYTES); past it 503. */
  budget: BodyBudget;
}

const shared = globalThis as unknown as { __ledgerIntakeLimits?: IntakeLimits };

/**
 * This process's limits, from the environment. On globalThis: Next loads the route handler's modules apart
 * from server.ts's, and both hosts of one process must draw on one budget.
 */
export function processIntakeLimits(): IntakeLimits {
  if (!shared.__ledgerIntakeLimits) {
    const env = getEnv();
    shared.__ledgerIntakeLimits = {
      bodyTimeoutMs: env.WEBHOOK_BODY_TIMEOUT_MS,
      budget: createBodyBudget(env.WEBHOOK_UNVERIFIED_MAX_BYTES),
    };
  }
  return shared.__ledgerIntakeLimits;
}
