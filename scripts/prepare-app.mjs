// Installs and builds only what is missing or stale, so a second start with nothing changed serves at once.
// Plain Node with no dependencies: it runs before `npm install` may have.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
// What the build reads: a change to any of these makes the last build stale.
const INPUTS = [
  "app",
  "components",
  "lib",
  "db",
  "drizzle",
  "public",
  "proxy.ts",
  "instrumentation.ts",
  "next.config.ts",
  "postcss.config.mjs",
  "tsconfig.json",
  "package-lock.json",
  "patches",
];
const STAMP = path.join(root, ".next", "ledger-build-stamp");

function run(cmd, args, env = {}) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: "inherit", env: { ...process.env, ...env } });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

function hashTree(hash, rel) {
  const abs = path.join(root, rel);
  if (!existsSync(abs)) return;
  if (statSync(abs).isDirectory()) {
    for (const name of readdirSync(abs).sort()) if (!name.endsWith(".test.ts")) hashTree(hash, path.join(rel, name));
  } else hash.update(rel).update("\0").update(readFileSync(abs)).update("\0");
}

// Installed for this lockfile's content, not its mtime: a fresh checkout (or a git worktree sharing node_modules)
// has a newer lockfile that says nothing new, and a needless `npm ci` there empties the shared folder.
const lockHash = createHash("sha256")
  .update(readFileSync(path.join(root, "package-lock.json")))
  .digest("hex");
const installedStamp = path.join(root, "node_modules", ".ledger-lock-sha256");
if (process.argv.includes("--stamp-install")) {
  // npm's postinstall: what was just installed is this lockfile's.
  writeFileSync(installedStamp, lockHash);
  process.exit(0);
}
if (!existsSync(installedStamp) || readFileSync(installedStamp, "utf8") !== lockHash) {
  console.log("[prepare] installing dependencies (npm ci)");
  run("npm", ["ci", "--no-audit", "--no-fund"]);
  writeFileSync(installedStamp, lockHash);
}

const hash = createHash("sha256");
for (const input of INPUTS) hashTree(hash, input);
const want = hash.digest("hex");
const have = existsSync(STAMP) ? readFileSync(STAMP, "utf8") : "";
if (have === want && existsSync(path.join(root, ".next", "BUILD_ID"))) {
  console.log("[prepare] the build is current: not rebuilding");
} else {
  console.log("[prepare] building the app (next build)");
  run("npx", ["next", "build"], { NEXT_TELEMETRY_DISABLED: "1" });
  writeFileSync(STAMP, want);
}
