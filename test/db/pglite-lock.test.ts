import { spawn } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectPglite } from "@/db/client";
import { lockPathFor } from "@/db/pglite-lock";

const FIXTURE = path.resolve("test/db/fixtures/open-pglite.ts");

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The fixture in its own Node process (no tsx wrapper process, so its pid is the holder's). */
function start(mode: "open" | "hold", dir: string) {
  const child = spawn(process.execPath, ["--import", "tsx", FIXTURE, mode, dir], { stdio: ["ignore", "pipe", "pipe"] });
  const out = { stdout: "", stderr: "" };
  child.stdout.on("data", (c: Buffer) => (out.stdout += c.toString()));
  child.stderr.on("data", (c: Buffer) => (out.stderr += c.toString()));
  const done = new Promise<Run>((resolve) => child.on("close", (code) => resolve({ code, ...out })));
  return { child, out, done };
}

const run = (dir: string) => start("open", dir).done;

let base: string;
let template: string;
let copies = 0;
/** A fresh copy of a created database: PGlite takes seconds to create one, a copy milliseconds. */
const copyOfTemplate = () => {
  const dir = path.join(base, `db${++copies}`);
  cpSync(template, dir, { recursive: true });
  return dir;
};

beforeAll(async () => {
  base = mkdtempSync(path.join(tmpdir(), "ledger-pglite-lock-"));
  template = path.join(base, "template");
  await (await connectPglite(template)).close();
}, 180_000);
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe("embedded database lock (PGlite)", () => {
  it("[pglite] a second process refuses a database another process holds, naming its pid, and opens it once released", async () => {
    const dir = copyOfTemplate();
    const handle = await connectPglite(dir);
    let closed = false;
    try {
      const refused = await run(dir);
      expect(refused.code).toBe(1);
      expect(refused.stdout).not.toContain("opened");
      expect(refused.stderr).toContain(`is in use by process ${process.pid}`);
      expect(refused.stderr).toMatch(/Stop that process first.*DATABASE_URL/);
      await handle.close();
      closed = true;
      expect(existsSync(lockPathFor(dir))).toBe(false);
      const after = await run(dir);
      expect(after).toMatchObject({ code: 0, stderr: "" });
      expect(after.stdout).toContain("opened");
    } finally {
      if (!closed) await handle.close();
    }
  });

  it("[pglite] a lock left by a process that was killed is taken over", async () => {
    const dir = copyOfTemplate();
    const holder = start("hold", dir);
    await new Promise<void>((resolve, reject) => {
      holder.child.stdout.on("data", () => holder.out.stdout.includes("opened") && resolve());
      void holder.done.then((r) => reject(new Error(`the holder exited early: ${r.stderr}`)));
    });
    holder.child.kill("SIGKILL");
    await holder.done;
    // SIGKILL runs no exit handler: the lock is still there, naming a dead pid.
    expect(JSON.parse(readFileSync(lockPathFor(dir), "utf8"))).toMatchObject({ pid: holder.child.pid });
    const next = await run(dir);
    expect(next).toMatchObject({ code: 0, stderr: "" });
    expect(next.stdout).toContain("opened");
  });

  it("[pglite] a damaged database gives one clear message, not a wall of Aborted(), and frees its lock", async () => {
    const dir = copyOfTemplate();
    // Garbage over the write-ahead log: PostgreSQL finds no checkpoint and PANICs (PGlite's "Aborted()").
    const wal = path.join(dir, "pg_wal");
    for (const f of readdirSync(wal).filter((n) => /^[0-9A-F]{24}$/.test(n)))
      writeFileSync(path.join(wal, f), Buffer.alloc(statSync(path.join(wal, f)).size, 0x5a));
    const failed = await run(dir);
    expect(failed.code).toBe(1);
    expect(failed.stderr).not.toContain("Aborted(");
    expect(failed.stderr.trim().split("\n")).toHaveLength(1);
    expect(failed.stderr).toContain(
      `the embedded database in ${dir} cannot be opened (damaged?): could not locate a valid checkpoint record`,
    );
    expect(failed.stderr).toMatch(/Move it aside or delete it to start over/);
    await expect(connectPglite(dir)).rejects.toThrow("cannot be opened (damaged?)");
    expect(existsSync(lockPathFor(dir))).toBe(false);
  });
});
