/** The channel every worker on PostgreSQL LISTENs on, embedded or standalone. */
export const WAKE_CHANNEL = "webhook_ledger_wake";

/**
 * Coalesces wake-ups: at most one call per `windowMs`, leading and trailing, so a burst of claims
 * costs one NOTIFY per window instead of one per event (a NOTIFY in every claim transaction
 * serialises commits), and the last claim of a burst still wakes someone.
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
