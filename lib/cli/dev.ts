import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type * as NextEnv from "@next/env";
import { acquirePgliteLock } from "@/db/pglite-lock";
import { inheritedEnv, TuningSchema } from "@/lib/env";
import { applyDemo, DEMO_FILE, readDemo } from "@/lib/demo/demo-file";

/**
 * `npm run dev`: `next dev` on the embedded database. After a quick start it uses that one's demo
 * webhook secrets and admin (.data/demo.json), so its signed demo deliveries verify here too.
 * While another process (the quick start's server) holds the database, it says so and does not start.
 */
function main() {
  // The .env files first (as `next dev` reads them), so what they set wins over the demo's values.
  const { loadEnvConfig } = createRequire(import.meta.url)("@next/env") as typeof NextEnv;
  loadEnvConfig(process.cwd(), true, { info: () => {}, error: console.error });
  const env = inheritedEnv();
  if (!env.DATABASE_URL) {
    const dir = TuningSchema.shape.PGLITE_DIR.parse(undefined);
    // Only a check (released at once): the dev server takes the lock itself when it opens the database.
    if (existsSync(path.dirname(path.resolve(dir)))) acquirePgliteLock(dir).release();
    const demo = readDemo();
    if (demo) {
      applyDemo(env, demo);
      console.log(`[dev] using the quick start's demo webhook secrets and admin from ${DEMO_FILE}`);
    }
  }
  const child = spawn("node_modules/.bin/next", ["dev", "-H", "127.0.0.1", ...process.argv.slice(2)], {
    stdio: "inherit",
    env,
  });
  for (const sig of ["SIGINT", "SIGTERM"] as const) process.on(sig, () => child.kill(sig));
  child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

try {
  main();
} catch (err) {
  console.error("[dev]", err instanceof Error ? err.message : err);
  process.exit(1);
}
