import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { and, eq, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { replayRun, type ReplayRun } from "@/db/schema/replay";
import { describeError } from "@/lib/errors";
import type { HttpOptions } from "./http";
import { executeReplayRun, type ExecuteResult } from "./run";
import type { RunLease } from "./runs";
import { listerFor } from "./sources";
import type { ReplayApiConfig } from "./types";

/** What a host (CLI, console, resumer) brings to drive runs. */
export interface ReplayHost {
  db: Db;
  config: ReplayApiConfig;
  lease: RunLease;
  http?: Omit<HttpOptions, "signal" | "secrets">;
  pageSize?: number;
  log?: (message: string) => void;
  onProgress?: (run: ReplayRun) => void;
  onClaimed?: (count: number) => void;
  /** A page transaction's statement bound, longer than the pool's. */
  statementTimeoutMs?: number;
}

export function leaseOwner(role: string): string {
  return `${role}@${hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`;
}

/** Drive a run this host holds the lease on; a configuration problem fails the run with its reason. */
export async function driveReplayRun(run: ReplayRun, host: ReplayHost, signal?: AbortSignal): Promise<ExecuteResult> {
  // The run row names this drive's own lease (taken or started just now): every write is fenced on it.
  const lease: RunLease = { owner: run.leaseOwner ?? "", leaseMs: host.lease.leaseMs };
  try {
    listerFor(run, host.config, { http: {} });
  } catch (err) {
    const [row] = await host.db
      .update(replayRun)
      .set({
        status: "failed",
        lastError: describeError(err),
        finishedAt: sql`now()`,
        leaseOwner: null,
        leaseExpiresAt: null,
      })
      .where(and(eq(replayRun.id, run.id), eq(replayRun.leaseOwner, lease.owner)))
      .returning();
    return row ?? run;
  }
  return executeReplayRun(run, {
    db: host.db,
    lease,
    lister: (stop) =>
      listerFor(run, host.config, { http: { ...host.http, log: host.log, signal: stop }, pageSize: host.pageSize }),
    signal,
    log: host.log,
    onProgress: host.onProgress,
    onClaimed: host.onClaimed,
    statementTimeoutMs: host.statementTimeoutMs,
  });
}
