import postgres from "postgres";

/** How long a run waits for its databases to go before leaving the rest to the server. */
const DROP_WAIT_MS = 8_000;

/**
 * Drops a run's databases, all at once, once nothing uses them. Each DROP DATABASE waits for a checkpoint, which
 * under the suite's load took half a minute (tens of thousands of files to sync), so the drops are waited for up
 * to a bound: a drop left running completes on the server, and costs nothing but a line here.
 */
export async function dropDatabases(adminUrl: string, names: readonly string[]): Promise<void> {
  if (names.length === 0) return;
  const admin = postgres(adminUrl, { max: Math.min(names.length, 8), onnotice: () => {}, connect_timeout: 5 });
  const drops = Promise.all(names.map((n) => admin.unsafe(`drop database if exists ${n} with (force)`)));
  const bound = new Promise<"slow">((resolve) => setTimeout(resolve, DROP_WAIT_MS, "slow").unref());
  if ((await Promise.race([drops, bound])) === "slow") {
    console.warn(
      `test databases still dropping after ${DROP_WAIT_MS / 1000} s, left to the server: ${names.join(", ")}`,
    );
    await admin.end({ timeout: 0 });
  } else {
    await admin.end();
  }
}
