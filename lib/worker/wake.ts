/** The channel every worker on PostgreSQL LISTENs on, embedded or standalone. */
export const WAKE_CHANNEL = "webhook_ledger_wake";

/**
 * Claims wake a worker at most once per this window (the first at once, the rest at its end): under a steady
 * inflow a loop leases the claims of a window together, one lease and one transaction for several events; a
 * NOTIFY per claim would also serialise the claims' commits.
 */
export const WAKE_WINDOW_MS = 20;

/**
 * Coalesces wake-ups: at most one call per `windowMs`, leading and trailing, so a burst of claims costs one
 * wake-up per window instead of one per event, and the last claim of a burst still wakes someone.
 */
export function coalesce(
  fn: () => Promise<void>,
  windowMs: number,
  onError: (err: unknown) => void = () => {},
): () => void {
  let last = 0;
  let trailing: NodeJS.Timeout | undefined;
  const fire = () => {
    last = Date.now();
    trailing = undefined;
    fn().catch(onError);
  };
  return () => {
    const wait = last + windowMs - Date.now();
    if (wait <= 0) fire();
    else trailing ??= setTimeout(fire, wait);
  };
}
