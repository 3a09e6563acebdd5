import type { Db } from "@/db/client";
import { isDataError, isRetryableConflict, UnavailableError } from "@/lib/errors";
import { claimEvents, type Claim, type ClaimResult } from "./claim";
import { noteClaimTime } from "@/lib/metrics/intake-strain";

export interface ClaimBatcherOptions {
  /** Every claim is answered within this: committed, or an UnavailableError (503) once it passes. */
  timeoutMs?: number;
  /** A statement older than this no longer holds the others back: the next batch goes beside it. */
  stallMs?: number;
  /** Claim statements in flight at most, counting those let past a stalled one. */
  maxInFlight?: number;
  /** Most deliveries in one statement. */
  maxBatch?: number;
  /** Most raw-body bytes in one statement (one delivery always goes, whatever its size). */
  maxBatchBytes?: number;
  /** Deliveries waiting for a statement, at most; past it a claim is refused at once. */
  maxQueue?: number;
  /** Raw-body bytes waiting (queued or in flight), at most; past it a claim is refused at once. */
  maxQueueBytes?: number;
}

interface Waiting {
  claim: Claim;
  bytes: number;
  resolve: (result: ClaimResult) => void;
  reject: (err: unknown) => void;
  timer: NodeJS.Timeout;
  /** Answered already (committed, failed or timed out): later outcomes are dropped. */
  done: boolean;
  /** Taken into a statement: past its deadline it may still commit, so the answer says so. */
  sent: boolean;
}

/**
 * Group commit for the receiver. A delivery that finds no claim statement running is claimed at once,
 * alone, so an idle receiver adds no latency; deliveries that arrive while one runs are claimed together
 * in the next. Each caller gets its own answer, and a success only after the statement holding its claim
 * has committed. One commit then serves many deliveries, which cuts the database's work per request
 * (bench:ingest).
 *
 * Bounded in time and memory: every claim is answered within `timeoutMs` (a stalled or unreachable
 * database answers 503, never a hang), and the waiting room holds at most `maxQueue` deliveries and
 * `maxQueueBytes` of bodies. A claim that times out while queued is never written; one that times out
 * in flight may still commit, which is harmless: the provider's retry is then a duplicate.
 *
 * One statement at a time batches best, but a claim can wait on a row lock (a duplicate of an event whose
 * worker transaction is still open), and it must not hold every other delivery back: once the running
 * statement is `stallMs` old, the next batch goes beside it, up to `maxInFlight`.
 */
export class ClaimBatcher {
  private readonly queue: Waiting[] = [];
  private readonly running = new Set<number>(); // start times of the statements in flight
  private stallTimer: NodeJS.Timeout | undefined;
  private heldBytes = 0;
  private readonly o: Required<ClaimBatcherOptions>;

  constructor(
    private readonly db: Db,
    opts: ClaimBatcherOptions = {},
  ) {
    this.o = {
      timeoutMs: opts.timeoutMs ?? 2000,
      stallMs: opts.stallMs ?? 100,
      maxInFlight: opts.maxInFlight ?? 4,
      maxBatch: opts.maxBatch ?? 100,
      // Bodies may be up to WEBHOOK_MAX_BYTES each: 100 of them in one JSON parameter would be a 100 MB string.
      maxBatchBytes: opts.maxBatchBytes ?? 4 * 1024 * 1024,
      maxQueue: opts.maxQueue ?? 2000,
      maxQueueBytes: opts.maxQueueBytes ?? 64 * 1024 * 1024,
    };
  }

  /** Deliveries waiting for a statement, the raw-body bytes held (waiting or in flight), statements in flight. */
  get load(): { queued: number; bytes: number; inFlight: number } {
    return { queued: this.queue.length, bytes: this.heldBytes, inFlight: this.running.size };
  }

  claim(claim: Claim): Promise<ClaimResult> {
    const bytes = claim.rawBody.length;
    if (this.queue.length >= this.o.maxQueue || (this.heldBytes > 0 && this.heldBytes + bytes > this.o.maxQueueBytes))
      return Promise.reject(new UnavailableError("intake full: too many deliveries are waiting for the database", 1));
    return new Promise((resolve, reject) => {
      const w: Waiting = { claim, bytes, resolve, reject, done: false, sent: false, timer: undefined as never };
      w.timer = setTimeout(() => this.expire(w), this.o.timeoutMs);
      this.heldBytes += bytes;
      this.queue.push(w);
      this.pump();
    });
  }

  private expire(w: Waiting): void {
    if (w.done) return;
    if (!w.sent) {
      const at = this.queue.indexOf(w);
      if (at >= 0) this.queue.splice(at, 1);
      this.release(w);
    }
    w.done = true;
    noteClaimTime(this.o.timeoutMs);
    const what = w.sent ? "the claim may still commit; a retry will be answered as a duplicate" : "nothing was written";
    w.reject(new UnavailableError(`the database did not answer within ${this.o.timeoutMs} ms (${what})`, 1));
  }

  private release(w: Waiting): void {
    this.heldBytes -= w.bytes;
  }

  private settle(w: Waiting, outcome: { result: ClaimResult } | { error: unknown }): void {
    if (w.sent) this.release(w);
    if (w.done) return;
    w.done = true;
    clearTimeout(w.timer);
    if ("result" in outcome) w.resolve(outcome.result);
    else w.reject(outcome.error);
  }

  private pump(): void {
    while (this.queue.length > 0 && this.mayStart()) this.start(this.takeBatch());
    if (this.queue.length > 0 && this.running.size < this.o.maxInFlight && !this.stallTimer) {
      // Wake when the youngest running statement turns stallMs old, to let the waiting batch past it.
      // One timer at a time; if it wakes early (a newer statement started since), pump arms the next.
      const youngest = Math.max(...this.running);
      this.stallTimer = setTimeout(
        () => {
          this.stallTimer = undefined;
          this.pump();
        },
        Math.max(1, youngest + this.o.stallMs - performance.now()),
      );
      this.stallTimer.unref();
    }
  }

  private takeBatch(): Waiting[] {
    let [n, bytes] = [0, 0];
    while (n < this.queue.length && n < this.o.maxBatch) {
      bytes += this.queue[n]!.bytes;
      if (n > 0 && bytes > this.o.maxBatchBytes) break;
      n++;
    }
    const batch = this.queue.splice(0, n);
    for (const w of batch) w.sent = true;
    return batch;
  }

  private mayStart(): boolean {
    if (this.running.size === 0) return true;
    if (this.running.size >= this.o.maxInFlight) return false;
    return performance.now() - Math.max(...this.running) >= this.o.stallMs;
  }

  private start(batch: Waiting[]): void {
    let startedAt = performance.now();
    while (this.running.has(startedAt)) startedAt += 1e-6; // two starts within one clock tick
    this.running.add(startedAt);
    void this.run(batch).finally(() => {
      this.running.delete(startedAt);
      this.pump();
    });
  }

  private async run(batch: Waiting[]): Promise<void> {
    try {
      const t0 = performance.now();
      const results = await claimEvents(
        this.db,
        batch.map((w) => w.claim),
      );
      noteClaimTime(performance.now() - t0);
      batch.forEach((w, n) => this.settle(w, { result: results[n]! }));
    } catch (err) {
      // One unstorable payload, or a deadlock with a writer outside the batcher, must not fail its
      // neighbours: each is claimed again on its own and gets its own answer. Anything else (the
      // database is gone) is every delivery's answer.
      if (batch.length > 1 && (isDataError(err) || isRetryableConflict(err))) {
        for (const w of batch) {
          if (w.done) {
            this.settle(w, { error: err }); // timed out meanwhile: its answer is given, its bytes go
            continue;
          }
          await claimEvents(this.db, [w.claim]).then(
            ([result]) => this.settle(w, { result: result! }),
            (error: unknown) => this.settle(w, { error }),
          );
        }
      } else {
        for (const w of batch) this.settle(w, { error: err });
      }
    }
  }
}

const batchers = new WeakMap<Db, ClaimBatcher>();

/** The batched claim: one delivery through the batcher of this database handle (created on first use). */
export function claimBatched(db: Db, claim: Claim, opts?: ClaimBatcherOptions): Promise<ClaimResult> {
  let batcher = batchers.get(db);
  if (!batcher) batchers.set(db, (batcher = new ClaimBatcher(db, opts)));
  return batcher.claim(claim);
}
