import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";
import drizzle from "eslint-plugin-drizzle";
import tseslint from "typescript-eslint";

const frameworkImports = [
  { group: ["next", "next/*", "react", "react-dom", "react/*"], message: "lib/ and db/ are framework-free: they serve the route, the worker and the CLI." },
  { group: ["@/components/*", "@/app/*"], message: "lib/ and db/ must not import UI." },
];

export default tseslint.config(
  { ignores: [".next/**", "node_modules/**", ".data/**", "drizzle/**", "test-results/**", "playwright-report/**", "next-env.d.ts"] },
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
      "@typescript-eslint/no-unused-vars": ["warn", { ignoreRestSiblings: true, varsIgnorePattern: "^_", argsIgnorePattern: "^_" }],
      "drizzle/enforce-delete-with-where": ["error", { drizzleObjectName: ["db", "tx"] }],
      "drizzle/enforce-update-with-where": ["error", { drizzleObjectName: ["db", "tx"] }],
    },
  },
  {
    files: ["app/**", "components/**"],
    rules: {
      "no-restricted-imports": ["error", { patterns: [{ group: ["@/db", "@/db/*"], allowTypeImports: true, message: "app/ and components/ reach the database through lib/." }] }],
    },
  },
  {
    files: ["lib/**", "db/**"],
    rules: { "no-restricted-imports": ["error", { patterns: frameworkImports }] },
  },
);
