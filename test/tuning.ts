import { TuningSchema } from "@/lib/env";

const TUNING_NAMES = new Set(Object.keys(TuningSchema.shape));

/**
 * A child process's environment with the constants a test shortens (WORKER_LEASE_MS, STRIPE_API_BASE, …) moved
 * into LEDGER_TUNING, the one way a process takes them: tests write them as they read, by name.
 */
export function childEnv(env: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const out = {} as NodeJS.ProcessEnv;
  const tuning: Record<string, string> = env.LEDGER_TUNING ? JSON.parse(env.LEDGER_TUNING) : {};
  for (const [key, value] of Object.entries(env)) {
    if (key === "LEDGER_TUNING") continue;
    if (TUNING_NAMES.has(key)) {
      if (value !== undefined) tuning[key] = value;
    } else out[key] = value;
  }
  if (Object.keys(tuning).length > 0) out.LEDGER_TUNING = JSON.stringify(tuning);
  return out;
}
