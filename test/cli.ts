import { spawn } from "node:child_process";
import { testDatabaseUrl } from "./db";

/** `npm run <file>` as a real child process on this run's database: its exit code and both streams. */
export function runCli(file: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env = { ...process.env, DATABASE_URL: testDatabaseUrl(), NODE_OPTIONS: "" };
  const child = spawn(process.execPath, ["--import", "tsx", `lib/cli/${file}.ts`, ...args], {
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}
