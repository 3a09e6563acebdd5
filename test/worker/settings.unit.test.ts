import { describe, expect, it } from "vitest";
import { parseEnv } from "@/lib/env";
import { DEFAULT_BATCH_SIZE, workerSettingsFromEnv } from "@/lib/worker/settings";

describe("worker settings", () => {
  it("[worker] the batch size defaults to 100 in the app's process and 250 in a standalone worker; a test's WORKER_BATCH_SIZE wins", () => {
    expect(DEFAULT_BATCH_SIZE).toEqual({ embedded: 100, standalone: 250 });
    expect(workerSettingsFromEnv(parseEnv({}), "embedded").batchSize).toBe(100);
    expect(workerSettingsFromEnv(parseEnv({}), "worker").batchSize).toBe(250);
    expect(workerSettingsFromEnv(parseEnv({}, { WORKER_BATCH_SIZE: 40 }), "worker").batchSize).toBe(40);
    expect(workerSettingsFromEnv(parseEnv({}, { WORKER_BATCH_SIZE: 40 }), "embedded").batchSize).toBe(40);
    expect(() => parseEnv({}, { WORKER_BATCH_SIZE: 0 })).toThrow(/LEDGER_TUNING.WORKER_BATCH_SIZE/);
  });
});
