import { getDb } from "@/db";
import { envVar, getEnv } from "@/lib/env";
import { declaredSources } from "./declared";
import { createSourceDirectory, type SourceDirectory } from "./directory";
import { createRefusalRecorder, type RefusalRecorder } from "./refusals";
import { createSecretBox, parseSecretKey, unkeyedFingerprint, type SecretBox } from "./secret-box";

// On globalThis: server.ts's receiver and the Next bundles (pages, server actions) are separate module
// graphs in one process, and a change made in the console must reach the receiver's copy at once.
const shared = globalThis as unknown as {
  __ledgerSources?: SourceDirectory;
  __ledgerRefusals?: RefusalRecorder;
  __ledgerSecretBox?: { box: SecretBox | undefined };
};

/** The box for console secrets, or undefined when LEDGER_SECRET_KEY is not set. Throws on a malformed key. */
export function secretBoxFromEnv(): SecretBox | undefined {
  shared.__ledgerSecretBox ??= (() => {
    const key = getEnv().LEDGER_SECRET_KEY;
    return { box: key ? createSecretBox(parseSecretKey(key)) : undefined };
  })();
  return shared.__ledgerSecretBox.box;
}

/**
 * This process's sources: declared (checked now: a bad SOURCES_FILE throws, naming the entry) and the
 * console's, read through the main pool.
 */
export function sourcesFromEnv(): SourceDirectory {
  if (shared.__ledgerSources) return shared.__ledgerSources;
  const env = getEnv();
  const box = secretBoxFromEnv();
  const declared = declaredSources(env, { envVar, fingerprint: box?.fingerprint ?? unkeyedFingerprint });
  shared.__ledgerSources = createSourceDirectory({
    declared,
    getDb,
    box,
    refreshMs: env.SOURCES_REFRESH_MS,
    log: (m) => console.error(`[sources] ${m}`),
  });
  return shared.__ledgerSources;
}

export function refusalsFromEnv(): RefusalRecorder {
  shared.__ledgerRefusals ??= createRefusalRecorder({ getDb, log: (m) => console.error(`[refusals] ${m}`) });
  return shared.__ledgerRefusals;
}
