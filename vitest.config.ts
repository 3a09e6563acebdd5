import { defineConfig } from "vitest/config";

/**
 * Three tiers (docs/testing.md): `unit` needs nothing but Node; `db` gets a PostgreSQL database of its own
 * per worker (cloned from one migrated template), so its files run in parallel; `faults` starts throwaway
 * clusters and real processes on free ports, each file its own. `npm test` runs all three and Playwright.
 */
const UNIT = ["test/providers/**/*.test.ts", "test/lint/**/*.test.ts", "test/**/*.unit.test.ts", "lib/**/*.test.ts"];
const FAULTS = ["test/faults/**/*.test.ts"];

export default defineConfig({
  resolve: { tsconfigPaths: true },
  test: {
    environment: "node",
    // Hang guards, not speed limits: beside the other tiers on two cores a PGlite migration took over 60 s.
    testTimeout: 180_000,
    hookTimeout: 180_000,
    projects: [
      // Node only and no shared state (a test that changes process state restores it): the files share one module
      // graph per worker instead of importing it each, which was most of this tier's time.
      { extends: true, test: { name: "unit", include: UNIT, isolate: false } },
      {
        extends: true,
        test: {
          name: "db",
          include: ["test/**/*.test.ts"],
          // As unit: a file imports the app's module graph once per worker, not once per file (the tier's import
          // time summed 937 → 28 s). Process-wide state a test changes it restores (test/worker/yield.test.ts).
          isolate: false,
          exclude: [...UNIT, ...FAULTS],
          globalSetup: ["./test/global-setup.ts"],
          setupFiles: ["./test/worker-database.ts"],
        },
      },
      {
        extends: true,
        test: {
          name: "faults",
          include: FAULTS,
          // Most files start their own clusters; the ones that kill real workers on the ledger's own tables use one.
          globalSetup: ["./test/global-setup.ts"],
          setupFiles: ["./test/worker-database.ts"],
        },
      },
    ],
  },
});
