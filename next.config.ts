import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // PGlite ships WASM and data files that must be loaded from node_modules at run time, not bundled.
  serverExternalPackages: ["@electric-sql/pglite"],
  poweredByHeader: false,
  // forbidden(): a real 403 page when a signed-in user lacks the role.
  experimental: { authInterrupts: true },
};

export default nextConfig;
