// `npm test`: every tier (docs/testing.md): unit beside the app's build, then db, e2e and faults one at a time.
// Prints a line per tier and one for the whole run, and exits non-zero when any test failed or any tier did not
// finish.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

const only = process.argv.slice(2);
const dir = mkdtempSync(path.join(tmpdir(), "ledger-test-"));

// vitest runs one file at a time on two cores. The db tier's files wait on PostgreSQL more than they compute, and
// each worker has a database of its own: four at once finish in about 40 % of the time (889 → 350 s on one
// machine). The fault files start their own clusters and processes on free ports: two at a time took the tier from
// 218 to 136 s, the frozen-PostgreSQL answers' worst 1.61 → 1.77 s against their 2.5 s bound.
const WORKERS = { db: 4, faults: 2 };

function vitestTier(name) {
  const out = path.join(dir, `${name}.json`);
  return {
    name,
    cmd: [
      "npx",
      "vitest",
      "run",
      "--project",
      name,
      ...(WORKERS[name] ? [`--maxWorkers=${WORKERS[name]}`] : []),
      "--reporter=default",
      "--reporter=json",
      `--outputFile.json=${out}`,
    ],
    counts() {
      const r = JSON.parse(readFileSync(out, "utf8"));
      return { passed: r.numPassedTests, failed: r.numFailedTests, skipped: r.numPendingTests + r.numTodoTests };
    },
  };
}

const e2eOut = path.join(dir, "e2e.json");
const TIERS = {
  unit: vitestTier("unit"),
  db: vitestTier("db"),
  faults: vitestTier("faults"),
  e2e: {
    name: "e2e",
    cmd: ["npx", "playwright", "test", "--reporter=list,json"],
    env: { PLAYWRIGHT_JSON_OUTPUT_FILE: e2eOut },
    counts() {
      const s = JSON.parse(readFileSync(e2eOut, "utf8")).stats;
      return { passed: s.expected + s.flaky, failed: s.unexpected, skipped: s.skipped };
    },
  },
};

/** Runs a command; buffered, its output goes to `<name>.log` and comes back as `log` (printed by the caller). */
function spawnLogged(name, cmd, { buffered, env = {} }) {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(cmd[0], cmd.slice(1), {
      stdio: buffered ? ["ignore", "pipe", "pipe"] : "inherit",
      env: { ...process.env, ...env },
    });
    let log = "";
    if (buffered) for (const s of [child.stdout, child.stderr]) s.on("data", (d) => (log += d));
    child.on("close", (code) => {
      const file = path.join(dir, `${name}.log`);
      if (buffered) writeFileSync(file, log);
      resolve({ code, log, file, seconds: (Date.now() - started) / 1000 });
    });
  });
}

async function run(tier) {
  const { code, seconds } = await spawnLogged(tier.name, tier.cmd, { buffered: false, env: tier.env });
  let counts;
  try {
    counts = tier.counts();
  } catch {
    counts = { passed: 0, failed: 0, skipped: 0, broken: true };
  }
  return { name: tier.name, code, seconds, ...counts };
}

// The browser tests need a production build. Built beside the db and faults tiers (load 15–20 on two cores) it
// took past Playwright's 240 s wait for the app and the e2e tier ran nothing; beside the unit tier it takes ~45 s.
// Run alone (`node scripts/test.mjs e2e`), Playwright's web server builds it.
async function build() {
  const { code, log, file, seconds } = await spawnLogged("build", ["node", "scripts/prepare-app.mjs"], {
    buffered: true,
  });
  if (code !== 0) process.stdout.write(`\n--- build (full output in ${file})\n${log.slice(-4000)}\n`);
  else console.log(`\n--- build for the browser tests: ready in ${seconds.toFixed(0)} s (${file})`);
  return code;
}

const want = (name) => only.length === 0 || only.includes(name);
const several = only.length !== 1;
const started = Date.now();
const results = [];

// 1. The unit tier beside the app's build (the browser tests' web server then finds the build current).
const [built, unit] = await Promise.all([want("e2e") && several ? build() : 0, want("unit") ? run(TIERS.unit) : null]);
if (unit) results.push(unit);
if (built !== 0) {
  console.log(`\nthe build for the browser tests failed (exit ${built})`);
  process.exit(1);
}
// 2–4. db, the browser tests, then the fault tests, one tier at a time. Side by side on two cores they oversubscribed
// the machine (load 15–21) and each took four times as long as alone (db 713 s beside e2e, 91–199 s alone; e2e 788 s
// beside db, ~200 s alone), and the fault tests judge time bounds a starved process misses.
for (const name of ["db", "e2e", "faults"]) if (want(name)) results.push(await run(TIERS[name]));

console.log("\n=== tiers");
for (const r of results) {
  const note = r.broken
    ? " (no results: the tier did not finish)"
    : r.code !== 0 && r.failed === 0
      ? ` (exit ${r.code})`
      : "";
  console.log(
    `${r.name.padEnd(7)} ${String(r.passed).padStart(4)} passed, ${r.failed} failed, ${r.skipped} skipped in ${r.seconds.toFixed(0)} s${note}`,
  );
}
const passed = results.reduce((n, r) => n + r.passed, 0);
const failed = results.reduce((n, r) => n + r.failed, 0);
const bad = results.some((r) => r.code !== 0 || r.broken);
console.log(`${passed} passed, ${failed} failed in ${((Date.now() - started) / 1000).toFixed(0)} s`);
process.exit(bad || failed > 0 ? 1 : 0);
