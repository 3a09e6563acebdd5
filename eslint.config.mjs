import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";
import boundaries from "eslint-plugin-boundaries";
import drizzle from "eslint-plugin-drizzle";
import tseslint from "typescript-eslint";

/*
 * The architecture, enforced. Each rule below has a proof in test/lint/rules.test.ts (a snippet that breaks it
 * makes it fire, one that keeps it does not); test/lint/audited-verbs.test.ts checks that the console's verbs
 * are audited, which no lint rule can see.
 *
 * A flat config's later block replaces a rule's options for the files it matches, so every file gets its whole
 * list of restricted imports from exactly one block below (restrictedImports builds them from these groups).
 */
const frameworkImports = [
  {
    group: ["next", "next/*", "react", "react-dom", "react/*", "server-only", "client-only"],
    message: "lib/ and db/ are framework-free: they serve the route, the worker and the CLI.",
  },
  { group: ["@/components", "@/components/*", "@/app", "@/app/*"], message: "lib/ and db/ must not import UI." },
];
const testImports = [
  {
    regex: "^(@/|(\\.\\./)+)(test|e2e|bench)(/|$)",
    message: "lib/ and db/ ship; test/, e2e/ and bench/ do not. Realistic payloads live in lib/samples/.",
  },
];
const libImports = [
  {
    regex: "^(@/|(\\.\\./)+)lib(/|$)",
    message:
      "db/ is the bottom: the schema, client and migrator import nothing from lib/ (only db/index.ts and db/migrate-cli.ts read the Env).",
  },
];
const wiringLibImports = [
  {
    regex: "^(@/|(\\.\\./)+)lib(/(?!(env|errors)$)|$)",
    message:
      "db/index.ts and db/migrate-cli.ts take the Env (lib/env.ts) and describeError (lib/errors.ts) from lib/, nothing else.",
  },
];
const dbValueImports = [
  {
    group: ["@/db", "@/db/*"],
    allowTypeImports: true,
    message: "app/ and components/ reach the database through lib/.",
  },
];
const nextLinkImports = [
  {
    group: ["next/link"],
    message: "Use @/components/link: it prefetches a route when a person points at the link, not when it is on screen.",
  },
];
// `import { env } from "node:process"` is process.env by another name.
const processEnvImports = ["process", "node:process"].map((name) => ({
  name,
  importNames: ["env"],
  message: "Read the environment through lib/env.ts (getEnv(), or inheritedEnv() for a child process).",
}));
const restrictedImports = (...groups) => ["error", { paths: processEnvImports, patterns: groups.flat() }];

/*
 * lib/'s direction, bottom first. A file may import its own unit and the units of any lower layer, never one
 * beside or above it: providers, errors and env know nothing of the ledger, the ledger nothing of the receiver,
 * and only the CLIs sit on everything. `db` (db/**) is a unit of its own here: providers and lifecycle do not
 * touch it. Set from the imports as they are: metrics sits over db (its labels are the schema's statuses and
 * refusal reasons); handlers sit under the ledger (ledger/process.ts applies them); replay sits over worker and
 * intake (it claims through intake and wakes the embedded worker); roles (who may do what) sit under audit, which
 * records every verb and sign-in, and auth (sessions, users) records through audit. A new folder or root file in lib/
 * belongs to no unit: boundaries/no-unknown-files fails it, and every import of it, until it has a layer here.
 */
const layers = [
  ["env", "errors", "samples", "format"],
  ["providers", "lifecycle", "db", "log"],
  ["roles", "handlers", "health", "metrics"],
  ["audit"],
  ["auth"],
  ["sources"],
  ["forward"],
  ["ledger", "retention", "alerts"],
  ["intake", "worker"],
  ["console"],
  ["replay"],
  ["receiver"],
  ["server", "demo", "context"],
  ["cli"],
];
// A folder unit is a boundaries element; a file at lib/'s root is a file category (elements are folders).
const folderUnits = [
  "samples",
  "format",
  "providers",
  "audit",
  "auth",
  "handlers",
  "sources",
  "forward",
  "ledger",
  "console",
  "retention",
  "alerts",
  "metrics",
  "log",
  "intake",
  "worker",
  "replay",
  "receiver",
  "server",
  "demo",
  "cli",
];
const fileUnits = {
  env: "lib/env.ts",
  errors: "lib/errors.ts",
  lifecycle: "lib/lifecycle.ts",
  health: "lib/health.ts",
  context: "lib/context.ts",
  roles: "lib/roles.ts",
};
const unitElements = [
  ...folderUnits.map((type) => ({ type, pattern: `lib/${type}`, partialMatch: false })),
  { type: "db", pattern: "db", partialMatch: false },
];
const unitFiles = Object.entries(fileUnits).map(([category, pattern]) => ({ category, pattern }));
const unit = (name) => [
  ...(folderUnits.includes(name) || name === "db" ? [{ element: { type: name } }] : []),
  ...(name in fileUnits ? [{ file: { categories: name } }] : []),
];
// For the rule's message (a Handlebars template): the unit of the importing file or of the import.
const unitName = (side) =>
  `{{#if ${side}.type}}{{${side}.type}}{{else}}{{#if ${side}.file.categories}}{{${side}.file.categories}}{{else}}no layer{{/if}}{{/if}}`;
const layerPolicies = layers.flatMap((layer, i) =>
  layer.map((name) => ({ from: unit(name), allow: { to: [name, ...layers.slice(0, i).flat()].flatMap(unit) } })),
);

export default tseslint.config(
  {
    ignores: [
      ".next/**",
      "node_modules/**",
      ".data/**",
      "drizzle/**",
      "test-results/**",
      "playwright-report/**",
      "next-env.d.ts",
    ],
  },
  ...nextVitals,
  ...nextTs,
  {
    files: ["**/*.ts", "**/*.tsx"],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    plugins: { drizzle },
    rules: {
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports" }],
      "@typescript-eslint/no-misused-promises": "error",
      "@typescript-eslint/no-floating-promises": "error",
      // `{ secret: _secret, ...rest }` is how a field is left out of a copy.
      "@typescript-eslint/no-unused-vars": [
        "warn",
        { ignoreRestSiblings: true, varsIgnorePattern: "^_", argsIgnorePattern: "^_" },
      ],
      "drizzle/enforce-delete-with-where": ["error", { drizzleObjectName: ["db", "tx"] }],
      "drizzle/enforce-update-with-where": ["error", { drizzleObjectName: ["db", "tx"] }],
    },
  },
  {
    // Prettier wraps code at 120 but leaves strings, template literals and class lists whole, so a line past 160
    // is one to split by hand (cn() groups, SQL one clause a line, a message joined with +). Nothing is exempt:
    // no line in the tree needs a URL, a regex or a string longer than that.
    rules: { "max-len": ["error", { code: 160, tabWidth: 2 }] },
  },
  {
    // The app's own code reads the environment only through lib/env.ts. Not the root's tooling files
    // (next/vitest/playwright/drizzle configs), test/, e2e/ or bench/; and not instrumentation.ts, which Next
    // loads in every runtime: it must test process.env.NEXT_RUNTIME (Next's variable, not our Env) before it
    // imports anything Node-only.
    files: ["lib/**", "db/**", "app/**", "components/**", "server.ts", "proxy.ts"],
    ignores: ["lib/env.ts"],
    rules: {
      "no-restricted-properties": [
        "error",
        {
          object: "process",
          property: "env",
          message: "Read the environment through lib/env.ts (getEnv(), or inheritedEnv() for a child process).",
        },
      ],
    },
  },
  {
    files: ["app/**", "components/**", "server.ts", "proxy.ts"],
    ignores: ["components/link.tsx"],
    rules: { "no-restricted-imports": restrictedImports(dbValueImports, nextLinkImports) },
  },
  {
    files: ["components/link.tsx"],
    rules: { "no-restricted-imports": restrictedImports(dbValueImports) },
  },
  {
    files: ["lib/**", "db/**"],
    rules: {
      "no-restricted-imports": restrictedImports(frameworkImports, testImports),
      "no-restricted-syntax": [
        "error",
        {
          selector: "ExpressionStatement[directive=/^use (server|client)$/]",
          message:
            'lib/ and db/ are framework-free: a "use server" or "use client" module belongs in app/, calling into lib/.',
        },
      ],
    },
  },
  {
    // Everything in db/ imports nothing from lib/, except its two entry points: db/index.ts is the app's database
    // wiring (getDb/getDbHandle read the Env once for every caller: the route, the worker, the CLIs) and
    // db/migrate-cli.ts is `npm run db:migrate`. Those two take lib/env.ts and lib/errors.ts, nothing more.
    files: ["db/**"],
    ignores: ["db/index.ts", "db/migrate-cli.ts"],
    rules: { "no-restricted-imports": restrictedImports(frameworkImports, testImports, libImports) },
  },
  {
    files: ["db/index.ts", "db/migrate-cli.ts"],
    rules: { "no-restricted-imports": restrictedImports(frameworkImports, testImports, wiringLibImports) },
  },
  {
    files: ["lib/**"],
    plugins: { boundaries },
    settings: {
      "boundaries/root-path": import.meta.dirname,
      "boundaries/elements": unitElements,
      "boundaries/files": unitFiles,
    },
    rules: {
      // Every file in lib/ belongs to a unit, so a new folder gets a layer before it can import anything.
      "boundaries/no-unknown-files": "error",
      "boundaries/dependencies": [
        "error",
        {
          default: "disallow",
          // Imports of local files that are no element (test/, bench/, a lib/ folder with no layer) fail too.
          checkUnknownLocals: true,
          message:
            `lib/ imports only downwards: ${unitName("from")} may not import {{dependency.source}} ` +
            `(${unitName("to")}); the layers are in eslint.config.mjs.`,
          policies: layerPolicies,
        },
      ],
    },
  },
);
