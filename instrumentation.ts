/**
 * `next dev` only: there Next is the whole process, so this starts what server.ts starts for `npm start`.
 * Under `npm start` (NODE_ENV=production) server.ts does it all, and Next's call here does nothing.
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { getEnv } = await import("@/lib/env");
  const env = getEnv();
  if (env.NODE_ENV !== "development") return;
  const { DEMO_FILE, readDemo } = await import("@/lib/demo/demo-file");
  const { createLifecycle } = await import("@/lib/lifecycle");
  const { componentLogger } = await import("@/lib/log");
  const { prepareDatabase } = await import("@/lib/server/app");
  const { startProcessWork } = await import("@/lib/server/start-process-work");
  const demo = readDemo();
  await prepareDatabase(componentLogger("ledger"), { demo: demo && { ...demo, file: DEMO_FILE } });
  // Next's dev server owns the signals and exits without a drain; a lease left behind expires and is retried.
  const lifecycle = createLifecycle({ timeoutMs: env.SHUTDOWN_TIMEOUT_MS });
  startProcessWork({ host: "app", lifecycle, env });
}
