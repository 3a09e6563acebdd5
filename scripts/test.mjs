// `npm test`: every tier (docs/testing.md). The fault tier mostly waits on real time, so it runs beside the
// others; unit, db and e2e run one after another. Prints a line per tier and one for the whole run, and exits
// non-zero when any test failed or any tier did not finish.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

const only = process.argv.slice(2);
const dir = mkdtempSync(path.join(tmpdir(), "ledger-test-"));

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

function run(tier, buffered) {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(tier.cmd[0], tier.cmd.slice(1), {
      stdio: buffered ? ["ignore", "pipe", "pipe"] : "inherit",
      env: { ...process.env, ...tier.env },
    });
    let log = "";
    if (buffered) for (const s of [child.stdout, child.stderr]) s.on("data", (d) => (log += d));
    child.on("close", (code) => {
      if (buffered) {
        const file = path.join(dir, `${tier.name}.log`);
        writeFileSync(file, log);
        process.stdout.write(
          `\n--- ${tier.name} (ran beside the others; full output in ${file})\n${log.slice(-4000)}\n`,
        );
      }
      let counts;
      try {
        counts = tier.counts();
      } catch {
        counts = { passed: 0, failed: 0, skipped: 0, broken: true };
      }
      resolve({ name: tier.name, code, seconds: (Date.now() - started) / 1000, ...counts });
    });
  });
}

const want = (name) => only.length === 0 || only.includes(name);
const started = Date.now();
const beside = want("faults") ? run(TIERS.faults, only.length !== 1) : undefined;
const results = [];
for (const name of ["unit", "db", "e2e"]) if (want(name)) results.push(await run(TIERS[name], false));
if (beside) results.push(await beside);

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
