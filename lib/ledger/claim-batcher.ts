import type { Db } from "@/db/client";
import { isDataError, sqlState } from "@/lib/errors";
import { IngestInput, ingestValidated, type IngestResult, type ValidIngestInput } from "./ingest";

export interface ClaimBatcherOptions {
  /** A statement older than this no longer holds the others back: the next batch goes beside it. */
  stallMs?: number;
  /** Claim statements in flight at most, counting those let past a stalled one. */
  maxInFlight?: number;
  /** Most deliveries in one statement. */
  maxBatch?: number;
  /** Most raw-body bytes in one statement (one delivery always goes, whatever its size). */
  maxBatchBytes?: number;
}

interface Waiting {
  input: ValidIngestInput;
  resolve: (result: IngestResult) => void;
  reject: (err: unknown) => void;
}

/**
 * Group commit for the receiver. A delivery that finds no claim statement running is claimed at once,
 * alone, so an idle receiver adds no latency; deliveries that arrive while one runs are claimed together
 * in the next. Each caller still gets its own answer, and only after the statement holding its claim has
 * committed (invariant 1). One commit then serves many deliveries, and the commit and per-statement work
 * are most of Postgres's cost per request (bench:ingest: about half the database CPU per request).
 *
 * One statement at a time batches best, but a claim can wait on a row lock (a duplicate of an event whose
 * worker transaction is still open), and it must not hold every other delivery back: once the running
 * statement is `stallMs` old, the next batch goes beside it, up to `maxInFlight`.
 */
export class ClaimBatcher {
  private readonly queue: Waiting[] = [];
  private readonly running = new Set<number>(); // start times of the statements in flight
  private stallTimer: NodeJS.Timeout | undefined;
  private readonly stallMs: number;
  private readonly maxInFlight: number;
  private readonly maxBatch: number;
  private readonly maxBatchBytes: number;

  constructor(
    private readonly db: Db,
    opts: ClaimBatcherOptions = {},
  ) {
    this.stallMs = opts.stallMs ?? 100;
    this.maxInFlight = opts.maxInFlight ?? 4;
    this.maxBatch = opts.maxBatch ?? 100;
    // Bodies may be up to WEBHOOK_MAX_BYTES each: 100 of them in one JSON parameter would be a 100 MB string.
    this.maxBatchBytes = opts.maxBatchBytes ?? 4 * 1024 * 1024;
  }

  claim(input: IngestInput): Promise<IngestResult> {
    // Checked here, not in the statement: an invalid input must fail alone, not the batch it would join.
    const valid = IngestInput.safeParse(input);
    if (!valid.success) return Promise.reject(valid.error);
    return new Promise((resolve, reject) => {
      this.queue.push({ input: valid.data, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.queue.length > 0 && this.mayStart()) this.start(this.takeBatch());
    if (this.queue.length > 0 && this.running.size < this.maxInFlight && !this.stallTimer) {
      // Wake when the youngest running statement turns stallMs old, to let the waiting batch past it.
      // One timer at a time; if it wakes early (a newer statement started since), pump arms the next.
      const youngest = Math.max(...this.running);
      this.stallTimer = setTimeout(() => {
        this.stallTimer = undefined;
        this.pump();
      }, Math.max(1, youngest + this.stallMs - performance.now()));
      this.stallTimer.unref();
    }
  }

  private takeBatch(): Waiting[] {
    let [n, bytes] = [0, 0];
    while (n < this.queue.length && n < this.maxBatch) {
      bytes += this.queue[n]!.input.rawBody.length;
      if (n > 0 && bytes > this.maxBatchBytes) break;
      n++;
    }
    return this.queue.splice(0, n);
  }

  private mayStart(): boolean {
    if (this.running.size === 0) return true;
    if (this.running.size >= this.maxInFlight) return false;
    return performance.now() - Math.max(...this.running) >= this.stallMs;
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
      const results = await ingestValidated(this.db, batch.map((w) => w.input));
      batch.forEach((w, n) => w.resolve(results[n]!));
    } catch (err) {
      // One unstorable payload, or a deadlock with a writer outside the batcher, must not fail its
      // neighbours: each is claimed again on its own and gets its own answer. Anything else (the
      // database is gone) is every delivery's answer.
      if (batch.length > 1 && (isDataError(err) || sqlState(err) === "40P01")) {
        for (const w of batch) await ingestValidated(this.db, [w.input]).then(([r]) => w.resolve(r!), w.reject);
      } else {
        for (const w of batch) w.reject(err);
      }
    }
  }
}

const batchers = new WeakMap<Db, ClaimBatcher>();

/** Claim one delivery through the batcher of this database handle. */
export function claimDelivery(db: Db, input: IngestInput): Promise<IngestResult> {
  let batcher = batchers.get(db);
  if (!batcher) batchers.set(db, (batcher = new ClaimBatcher(db)));
  return batcher.claim(input);
}

