export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { getDbHandle } = await import("@/db");
  const { describeError } = await import("@/lib/errors");
  // Migrate (and open the embedded database) at start-up rather than on the first webhook.
  try {
    const handle = await getDbHandle();
    console.log(`[ledger] database ready (${handle.kind})`);
    const { bootstrapAtStartup } = await import("@/lib/auth/bootstrap");
    const { appBaseURL } = await import("@/lib/auth/runtime");
    const { DEMO_FILE, readDemo } = await import("@/lib/demo/demo-file");
    const { getEnv } = await import("@/lib/env");
    const env = getEnv();
    const demo = readDemo();
    const line = await bootstrapAtStartup(handle.db, {
      email: env.ADMIN_EMAIL,
      password: env.ADMIN_PASSWORD,
      baseURL: appBaseURL(),
      demo: demo && { ...demo, file: DEMO_FILE },
    });
    if (line) console.log(`[ledger] ${line}`);
  } catch (err) {
    // Keep serving: /api/health answers 503 and each request retries the connection.
    console.error("[ledger] database not ready:", describeError(err));
  }
  const { startEmbeddedWorker } = await import("@/lib/worker/embedded");
  if (startEmbeddedWorker()) console.log("[ledger] embedded worker started (WORKER_MODE=embedded)");
  // Replay runs an earlier process left running (killed, restarted) continue from their cursor.
  const { startEmbeddedReplays } = await import("@/lib/replay/embedded");
  startEmbeddedReplays();
}
