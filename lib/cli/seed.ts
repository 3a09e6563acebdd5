import { postDeliveries } from "@/lib/demo/post";
import { demoTraffic } from "@/lib/demo/traffic";
import { getEnv } from "@/lib/env";
import { LEGACY_SECRET_VARS, type LegacyKind } from "@/lib/sources/declared";

/** `npm run db:seed`: post the demo traffic to a running app (APP_URL), signed with this environment's secrets. */
async function main() {
  const env = getEnv();
  const url = env.APP_URL ?? `http://127.0.0.1:${env.PORT}`;
  const secrets: Partial<Record<LegacyKind, string>> = {};
  for (const [kind, variable] of Object.entries(LEGACY_SECRET_VARS) as [LegacyKind, keyof typeof env][]) {
    const first = (env[variable] as readonly string[])[0];
    if (first) secrets[kind] = first;
  }
  const summary = await postDeliveries(url, demoTraffic(), secrets);
  console.log(`posted ${summary.sent} deliveries to ${url}: ${JSON.stringify(summary.byStatus)}`);
  if (summary.skipped.length) console.log(`skipped (no secret set): ${summary.skipped.join(", ")}`);
}

main().catch((err: unknown) => {
  console.error("seed failed:", err instanceof Error ? err.message : err);
  process.exit(1);
});
