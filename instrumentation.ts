export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  // Migrate (and open the embedded database) at start-up rather than on the first webhook.
  const { getDbHandle } = await import("@/db");
  const { describeError } = await import("@/lib/errors");
  try {
    const handle = await getDbHandle();
    console.log(`[ledger] database ready (${handle.kind})`);
  } catch (err) {
    // Keep serving: /api/health answers 503 and each request retries the connection.
    console.error("[ledger] database not ready:", describeError(err));
  }
  const { startEmbeddedWorker } = await import("@/lib/worker/embedded");
  if (startEmbeddedWorker()) console.log("[ledger] embedded worker started (WORKER_MODE=embedded)");
}
