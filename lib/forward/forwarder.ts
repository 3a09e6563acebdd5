import { setMaxListeners } from "node:events";
import type { Db } from "@/db/client";
import { describeError } from "@/lib/errors";
import type { SecretBox } from "@/lib/sources/secret-box";
import type { SourceDirectory } from "@/lib/sources/directory";
import { destinationSecrets, listDestinations, type Destination } from "./destinations";
import {
  BREAKER_FAILURES,
  leaseForwards,
  recordResults,
  type AttemptResult,
  type LeasedForward,
  type RecordedAs,
} from "./lease";
import { messageFor } from "./message";
import { sendForward, type SendResult } from "./send";

export interface ForwarderOptions {
  getDb: () => Promise<Db>;
  sources: SourceDirectory;
  envVar: (name: string) => string | undefined;
  box?: SecretBox;
  allowPrivate: boolean;
  /** How often due forwards are looked for when nothing wakes the forwarder. */
  pollMs?: number;
  log?: (message: string) => void;
  /** Told after each attempt (metrics, tests). */
  onAttempt?: (d: Destination, f: LeasedForward, result: SendResult, recorded: RecordedAs) => void;
}

export interface Forwarder {
  start(): void;
  /** Stops leasing, lets requests in flight finish (they are bounded by their timeout), then returns. */
  stop(): Promise<void>;
  /** Look for due forwards now (a settle queued some). */
  wake(): void;
  lastTickAt(): number | undefined;
}

/** How long a stop waits for requests in flight before cutting them (inside the process's shutdown budget). */
const STOP_GRACE_MS = 3000;
/** Forwards leased per statement at most: a large backlog is taken in steps, never in one transaction. */
const LEASE_BATCH = 100;

/**
 * The forwarder: a loop beside the worker's, in the same hosts. Each round reads the destinations, and for each
 * active one whose breaker is closed (or half-open: one probe) leases what its budget allows (maxInFlight across
 * processes, ratePerSecond in this one) and sends each forward on its own; a finished request wakes the loop.
 */
export function createForwarder(opts: ForwarderOptions): Forwarder {
  const pollMs = opts.pollMs ?? 250;
  const inFlight = new Map<string, number>();
  const requests = new Set<Promise<void>>();
  /** Attempts finished and not yet written: the next round writes them before it leases. */
  const finished: (AttemptResult & { d: Destination })[] = [];
  const buckets = new Map<string, { tokens: number; at: number }>();
  const stopping = new AbortController();
  setMaxListeners(0, stopping.signal); // one listener per request in flight, maxInFlight of them per destination
  let running = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let ticking: Promise<void> | undefined;
  let again = false;
  let lastTick: number | undefined;

  const schedule = (ms: number) => {
    if (!running) return;
    clearTimeout(timer);
    timer = setTimeout(() => void tick(), ms);
    timer.unref?.();
  };

  /** This process's budget for a destination now: its free slots, its rate, its breaker. */
  const budget = (d: Destination, now: number): number => {
    if (d.state !== "active") return 0;
    const busy = inFlight.get(d.name) ?? 0;
    if (d.breakerUntil && d.breakerUntil.getTime() > now) return 0;
    // Half-open: the breaker's time has passed; one request probes whether the destination is back.
    if (d.failuresInRow >= BREAKER_FAILURES) return busy === 0 ? 1 : 0;
    let n = Math.min(d.maxInFlight - busy, LEASE_BATCH);
    if (d.ratePerSecond) {
      const b = buckets.get(d.name) ?? { tokens: d.ratePerSecond, at: now };
      b.tokens = Math.min(d.ratePerSecond, b.tokens + ((now - b.at) / 1000) * d.ratePerSecond);
      b.at = now;
      buckets.set(d.name, b);
      n = Math.min(n, Math.floor(b.tokens));
    }
    return Math.max(n, 0);
  };

  const send = async (d: Destination, f: LeasedForward, secrets: readonly string[]) => {
    const startedAt = new Date();
    let result: SendResult;
    try {
      const source = d.format === "provider" ? await opts.sources.find(f.source) : undefined;
      const message = messageFor(d.format, f, { secrets, source, now: startedAt });
      result = await sendForward({
        url: d.url,
        headers: message.headers,
        body: message.body,
        timeoutMs: d.timeoutMs,
        allowPrivate: opts.allowPrivate,
        signal: stopping.signal,
      });
    } catch (err) {
      result = { ok: false, error: describeError(err), durationMs: Date.now() - startedAt.getTime() };
    }
    if (stopping.signal.aborted && !result.ok) return; // shutting down: the lease expires and it is sent again
    finished.push({ d, f, result, startedAt });
  };

  /**
   * Writes the results that came in since the last round, one statement per destination. A result that cannot be
   * written is lost with its lease, which expires: the forward is sent again, with the same webhook-id.
   */
  const record = async (db: Db) => {
    const byDestination = new Map<string, { d: Destination; items: AttemptResult[] }>();
    for (const { d, ...item } of finished.splice(0)) {
      const group = byDestination.get(d.name) ?? { d, items: [] };
      group.items.push(item);
      byDestination.set(d.name, group);
    }
    for (const { d, items } of byDestination.values()) {
      try {
        const recorded = await recordResults(db, d, items);
        items.forEach((item, i) => opts.onAttempt?.(d, item.f, item.result, recorded[i]!));
      } catch (err) {
        opts.log?.(`could not record ${items.length} forward(s) to ${d.name}: ${describeError(err)}`);
      }
    }
  };

  const round = async () => {
    const db = await opts.getDb();
    await record(db);
    const now = Date.now();
    for (const d of await listDestinations(db, { live: true })) {
      const n = budget(d, now);
      if (n <= 0) continue;
      let secrets: string[] = [];
      if (d.format === "standard") {
        try {
          secrets = await destinationSecrets(db, d, { envVar: opts.envVar, box: opts.box });
        } catch (err) {
          opts.log?.(`destination ${d.name}: cannot sign (${describeError(err)}); its forwards wait`);
          continue;
        }
        if (secrets.length === 0) {
          opts.log?.(`destination ${d.name} has no secret to sign with; its forwards wait`);
          continue;
        }
      }
      const leased = await leaseForwards(db, d, n);
      const bucket = buckets.get(d.name);
      if (bucket) bucket.tokens -= leased.length;
      for (const f of leased) {
        inFlight.set(d.name, (inFlight.get(d.name) ?? 0) + 1);
        const p = send(d, f, secrets).finally(() => {
          inFlight.set(d.name, (inFlight.get(d.name) ?? 1) - 1);
          requests.delete(p);
          wake();
        });
        requests.add(p);
      }
    }
  };

  const tick = async (): Promise<void> => {
    if (!running) return;
    if (ticking) {
      again = true;
      return;
    }
    ticking = (async () => {
      do {
        again = false;
        try {
          await round();
        } catch (err) {
          opts.log?.(`forwarder round failed: ${describeError(err)}`);
        }
        lastTick = Date.now();
      } while (again && running);
    })();
    await ticking;
    ticking = undefined;
    schedule(pollMs);
  };

  const wake = () => {
    if (running) schedule(0);
  };

  return {
    start() {
      if (running) return;
      running = true;
      schedule(0);
    },
    async stop() {
      running = false;
      clearTimeout(timer);
      await ticking;
      // Requests in flight get a moment to finish; the rest are cut, and their leases expire and send them again.
      const grace = setTimeout(() => stopping.abort(), STOP_GRACE_MS);
      await Promise.allSettled([...requests]);
      clearTimeout(grace);
      if (finished.length > 0) await record(await opts.getDb()).catch(() => undefined);
    },
    wake,
    lastTickAt: () => lastTick,
  };
}
