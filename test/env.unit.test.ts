import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { withoutPrepareParam } from "@/db/client";
import { parseEnv, retiredVariables, SETTING_NAMES, TuningSchema } from "@/lib/env";

/** The variables the README's Configuration table names, in backticks in its first column. */
function readmeSettings(): string[] {
  const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
  const from = readme.indexOf("## Configuration");
  const table = readme.slice(from, readme.indexOf("\n## ", from + 1));
  return table
    .split("\n")
    .filter((l) => l.startsWith("| `"))
    .flatMap((l) => [...l.split("|")[1]!.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]!));
}

describe("settings", () => {
  it("[settings] the README's table lists exactly the variables the code reads, at most 35 of them", () => {
    const read = SETTING_NAMES.filter((n) => n !== "NODE_ENV").sort();
    expect(readmeSettings().sort()).toEqual(read);
    expect(read.length).toBeLessThanOrEqual(35);
  });

  it("[settings] a constant set as a variable is not read, and start-up can name it", () => {
    const env = parseEnv({ WORKER_LEASE_MS: "5", RETENTION_DAYS: "30" });
    expect(env.WORKER_LEASE_MS).toBe(30_000);
    expect(env.RETENTION_DAYS).toBe(30);
    expect(retiredVariables({ WORKER_LEASE_MS: "5", REPLAY_TOKENS: "x", RETENTION_DAYS: "30", EMPTY: "" })).toEqual([
      "WORKER_LEASE_MS",
      "REPLAY_TOKENS",
    ]);
  });

  it("[settings] a bad value is refused at start-up naming the variable; LEDGER_TUNING is checked as strictly", () => {
    expect(() => parseEnv({ WEBHOOK_MAX_BYTES: "0" })).toThrow(/WEBHOOK_MAX_BYTES/);
    expect(() => parseEnv({ LEDGER_TUNING: "{" })).toThrow(/LEDGER_TUNING: not JSON/);
    expect(() => parseEnv({ LEDGER_TUNING: JSON.stringify({ WORKER_LEASE_MS: 5 }) })).toThrow(
      /LEDGER_TUNING.WORKER_LEASE_MS/,
    );
    expect(() => parseEnv({ LEDGER_TUNING: JSON.stringify({ WORKER_LEASE: 500 }) })).toThrow(/WORKER_LEASE/);
    expect(parseEnv({ LEDGER_TUNING: JSON.stringify({ WORKER_LEASE_MS: 500 }) }).WORKER_LEASE_MS).toBe(500);
    expect(parseEnv({}, { WORKER_LEASE_MS: 700 }).WORKER_LEASE_MS).toBe(700);
    expect(Object.keys(TuningSchema.shape)).not.toContain("DATABASE_URL");
  });

  it("[settings] ?prepare=false on DATABASE_URL turns prepared statements off and is not passed on to the server", () => {
    expect(withoutPrepareParam("postgres://u@db:6432/app?prepare=false&sslmode=require")).toEqual({
      url: "postgres://u@db:6432/app?sslmode=require",
      prepare: false,
    });
    expect(withoutPrepareParam("postgres://u@db/app")).toEqual({ url: "postgres://u@db/app", prepare: true });
  });

  it("[settings] GitHub Enterprise comes from the hook's URL, Paddle's sandbox from its key", () => {
    const ghe = parseEnv({ GITHUB_REPLAY_HOOK: "https://ghe.example.com/api/v3/repos/acme/shop/hooks/42" });
    expect([ghe.GITHUB_API_BASE, ghe.GITHUB_REPLAY_HOOK]).toEqual(["https://ghe.example.com/api/v3", "acme/shop/42"]);
    const dotcom = parseEnv({ GITHUB_REPLAY_HOOK: "acme/shop/42" });
    expect([dotcom.GITHUB_API_BASE, dotcom.GITHUB_REPLAY_HOOK]).toEqual(["https://api.github.com", "acme/shop/42"]);
    expect(() => parseEnv({ GITHUB_REPLAY_HOOK: "acme/shop" })).toThrow(/GITHUB_REPLAY_HOOK must look like/);
    expect(parseEnv({ PADDLE_API_KEY: "pdl_sdbx_apikey_01abc" }).PADDLE_API_BASE).toBe(
      "https://sandbox-api.paddle.com",
    );
    expect(parseEnv({ PADDLE_API_KEY: "pdl_live_apikey_01abc" }).PADDLE_API_BASE).toBe("https://api.paddle.com");
  });
});
