import type { AttemptTrigger } from "@/db/schema";

export interface EventKey {
  /** The source's slug. */
  source: string;
  eventId: string;
}

/** An EventKey as one Map key. */
export const keyOf = (e: EventKey) => `${e.source}\u0000${e.eventId}`;

/** A ledger row this worker holds a lease on. `leaseToken` fences every write that follows. */
export interface LeasedEvent extends EventKey {
  eventType: string;
  payload: unknown;
  /** This attempt's number (attempts after the lease's +1). */
  attempt: number;
  attemptsBase: number;
  leaseToken: string;
  leasedAt: Date;
  trigger: AttemptTrigger;
  actor: string;
  /** What the receiver found unusable in it (a version out of range): part of any failure's message. */
  intakeNote?: string;
  /** The ids found in it at the claim: the search directory is written from them when the attempt ends. */
  subjectIds: string[];
  /** A test event from the console: settled as ignored, never applied (lib/providers/test-marker.ts). */
  test?: boolean;
}

export interface RetryPolicy {
  maxAttempts: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
}

// The domain errors live in lib/errors.ts; re-exported for the ledger verbs that throw them.
export { ConflictError, NotFoundError } from "@/lib/errors";
