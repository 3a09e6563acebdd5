import { tmpdir } from "node:os";
import { freePort, spawnProcess, type SpawnedProcess } from "./processes";

/** A redis-server of the test's own on a free port (never the machine's shared one), to kill at will. */
export async function startThrowawayRedis(
  port?: number,
): Promise<{ port: number; url: string; proc: SpawnedProcess; kill: () => Promise<void> }> {
  const p = port ?? (await freePort());
  const proc = spawnProcess("redis-server", [
    "--port",
    String(p),
    "--bind",
    "127.0.0.1",
    "--save",
    "",
    "--appendonly",
    "no",
    "--dir",
    tmpdir(),
  ]);
  await proc.waitForLine(/Ready to accept connections/, 10_000);
  return {
    port: p,
    url: `redis://127.0.0.1:${p}`,
    proc,
    kill: async () => {
      if (proc.exited) return;
      proc.kill("SIGKILL");
      await proc.waitForExit(5000);
    },
  };
}
