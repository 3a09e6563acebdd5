/**
 * PGlite has one connection: while a transaction holds it, every other query of the process waits. A
 * transaction that never ends (a read through the pool inside it waits on itself) would hang the whole app
 * silently; this makes it visible: an error in the log once it passes STUCK_AFTER_MS, and the hold time for
 * the health checks to report.
 */
const STUCK_AFTER_MS = 10_000;

interface Watched {
  transaction<T>(fn: (tx: never) => Promise<T>): Promise<T>;
}

const held = new Set<number>();

/** How long the oldest transaction still open on an embedded database has held its connection (ms), if any. */
export function pgliteHeldForMs(now = performance.now()): number | undefined {
  let oldest: number | undefined;
  for (const started of held) oldest = oldest === undefined ? started : Math.min(oldest, started);
  return oldest === undefined ? undefined : Math.round(now - oldest);
}

export function watchPgliteTransactions(client: Watched, log: (message: string) => void): void {
  const transaction = client.transaction.bind(client);
  client.transaction = async <T>(fn: (tx: never) => Promise<T>): Promise<T> => {
    let started: number | undefined;
    let timer: NodeJS.Timeout | undefined;
    try {
      return await transaction(async (tx) => {
        started = performance.now();
        held.add(started);
        timer = setTimeout(() => {
          log(
            `the embedded database's one connection has been held by one transaction for ${STUCK_AFTER_MS / 1000} s: ` +
              "every other request waits behind it. A verb that reads outside its transaction on PGlite waits on itself; " +
              "restart the app, and report the action that was running",
          );
        }, STUCK_AFTER_MS);
        timer.unref();
        return fn(tx);
      });
    } finally {
      clearTimeout(timer);
      if (started !== undefined) held.delete(started);
    }
  };
}
