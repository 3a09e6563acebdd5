import type { NextConfig } from "next";
import { SECURITY_HEADERS } from "./lib/server/security-headers";

// CI's build (.ci/run): tsc has run over the whole project already, and the checkout is thrown away afterwards, so
// neither Next's own typecheck nor Turbopack's build cache (written for a next build that never comes) is worth doing.
const ciBuild = process.env.LEDGER_CI_BUILD === "1";

const nextConfig: NextConfig = {
  // PGlite ships WASM and data files that must be loaded from node_modules at run time, not bundled.
  serverExternalPackages: ["@electric-sql/pglite"],
  poweredByHeader: false,
  typescript: { ignoreBuildErrors: ciBuild },
  // forbidden(): a real 403 page when a signed-in user lacks the role.
  experimental: { authInterrupts: true, turbopackFileSystemCacheForBuild: !ciBuild },
  // Framing, sniffing and referrer headers on every response, static assets and 404s included. The
  // Content-Security-Policy carries a per-request nonce, so proxy.ts sets it (and these again) on pages.
  async headers() {
    return [{ source: "/:path*", headers: Object.entries(SECURITY_HEADERS).map(([key, value]) => ({ key, value })) }];
  },
};

export default nextConfig;
