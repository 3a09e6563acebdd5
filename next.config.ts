import type { NextConfig } from "next";
import { SECURITY_HEADERS } from "./lib/server/security-headers";

const nextConfig: NextConfig = {
  // PGlite ships WASM and data files that must be loaded from node_modules at run time, not bundled.
  serverExternalPackages: ["@electric-sql/pglite"],
  poweredByHeader: false,
  // CI has run tsc over the whole project already (.ci/run); the test build need not do it again.
  typescript: { ignoreBuildErrors: process.env.LEDGER_SKIP_BUILD_TYPECHECK === "1" },
  // forbidden(): a real 403 page when a signed-in user lacks the role.
  experimental: { authInterrupts: true },
  // Framing, sniffing and referrer headers on every response, static assets and 404s included. The
  // Content-Security-Policy carries a per-request nonce, so proxy.ts sets it (and these again) on pages.
  async headers() {
    return [{ source: "/:path*", headers: Object.entries(SECURITY_HEADERS).map(([key, value]) => ({ key, value })) }];
  },
};

export default nextConfig;
