import WebSocket from "ws";

/** What a process keeps alive right after a full garbage collection (process.memoryUsage()). */
export interface LiveMemory {
  heapUsed: number;
  /** Off-heap memory owned by JS objects: Buffers and ArrayBuffers (a request body is one). */
  external: number;
  /** heapUsed + external: the bytes the process cannot give back. */
  live: number;
}

/**
 * A DevTools-protocol session with a child started with `--inspect=127.0.0.1:0`. RSS alone cannot tell a
 * leak from garbage not yet collected: V8 lets tens of MB of dead Buffers pile up before its external-memory
 * heuristic forces a collection, more so when the machine is busy. Collecting first and then reading
 * process.memoryUsage() measures only what is still reachable.
 */
export interface Inspector {
  liveMemory: () => Promise<LiveMemory>;
  close: () => void;
}

export async function connectInspector(wsUrl: string): Promise<Inspector> {
  const ws = new WebSocket(wsUrl);
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
  });
  let nextId = 1;
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  ws.on("message", (data) => {
    const msg = JSON.parse(String(data)) as { id?: number; result?: unknown; error?: { message: string } };
    const waiter = msg.id === undefined ? undefined : pending.get(msg.id);
    if (!waiter) return;
    pending.delete(msg.id!);
    if (msg.error) waiter.reject(new Error(msg.error.message));
    else waiter.resolve(msg.result);
  });
  ws.on("close", () => {
    for (const w of pending.values()) w.reject(new Error("inspector closed"));
    pending.clear();
  });
  const call = (method: string, params: Record<string, unknown> = {}) =>
    new Promise<unknown>((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      ws.send(JSON.stringify({ id, method, params }));
    });
  return {
    liveMemory: async () => {
      await call("HeapProfiler.collectGarbage");
      const result = (await call("Runtime.evaluate", {
        expression: "JSON.stringify(process.memoryUsage())",
        returnByValue: true,
      })) as { result: { value: string } };
      const m = JSON.parse(result.result.value) as { heapUsed: number; external: number };
      return { heapUsed: m.heapUsed, external: m.external, live: m.heapUsed + m.external };
    },
    close: () => ws.close(),
  };
}
