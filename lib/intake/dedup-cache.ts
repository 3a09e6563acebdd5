import { createHash } from "node:crypto";
import { Redis } from "ioredis";
import { describeError } from "@/lib/errors";

/**
 * An optional Redis short-circuit in front of the ledger. PostgreSQL stays the only record of what was
 * received: a marker here only lets a retry of an already-claimed delivery be answered without a claim
 * statement. Every doubt (no marker, Redis slow, down or erroring) answers "not seen", and the caller
 * does the real claim, so losing Redis costs throughput, never correctness.
 */
export interface DedupCache {
  /** True only if Redis holds a marker for this delivery and said so within the time budget; never rejects. */
  seen(source: string, eventId: string): Promise<boolean>;
  /**
   * Records that the event is in the ledger. Call only after the claim committed (claimed or duplicate), never
   * before: a marker for an uncommitted claim would answer a retry for an event the ledger may not hold.
   * Fire-and-forget: returns at once, never throws, and a lost marker only costs one claim statement later.
   */
  mark(source: string, eventId: string): void;
  close(): Promise<void>;
}

export interface DedupCacheOptions {
  /** DEDUP_CACHE_URL (redis:// or rediss://); never logged, it may carry a password. */
  url: string;
  /** DEDUP_CACHE_TTL_SECONDS: how long a marker answers retries. */
  ttlSeconds: number;
  /** Longest a `seen()` waits for Redis's answer once connected. */
  timeoutMs?: number;
  /** After a failed or late command, Redis is skipped for this long. */
  breakerMs?: number;
  /** Commands awaiting a reply, at most; past it checks answer "not seen" and marks are dropped. */
  maxInFlight?: number;
  keyPrefix?: string;
  log?: (message: string) => void;
}

export const DEDUP_KEY_PREFIX = "wl:dedup:";
export const DEDUP_DEFAULT_TIMEOUT_MS = 5;
export const DEDUP_DEFAULT_BREAKER_MS = 1000;
/** Late answers in a row before Redis is skipped for breakerMs. */
const LATE_TO_TRIP = 3;

/**
 * `<prefix><source label>:<digest>`. The digest, not the label, makes the key unique: it is taken over the
 * UTF-16 code units (lone surrogates included, which a UTF-8 key would fold into U+FFFD) of a length-prefixed
 * source followed by the event id, so no (source, id) pair can spell another's key, whatever the attacker-
 * influenced id holds. The key stays short and printable; the label is only there for a person running SCAN.
 */
export function dedupCacheKey(prefix: string, source: string, eventId: string): string {
  const digest = createHash("sha256").update(`${source.length}:${source}:${eventId}`, "utf16le").digest("base64url");
  const label = source.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 32);
  return `${prefix}${label}:${digest}`;
}

/** When DEDUP_CACHE_URL is unset: every delivery goes to the ledger. */
export const noDedupCache: DedupCache = {
  seen: () => Promise.resolve(false),
  mark: () => {},
  close: () => Promise.resolve(),
};

export function connectDedupCache(opts: DedupCacheOptions): DedupCache {
  const {
    ttlSeconds,
    timeoutMs = DEDUP_DEFAULT_TIMEOUT_MS,
    breakerMs = DEDUP_DEFAULT_BREAKER_MS,
    maxInFlight = 1000,
    keyPrefix = DEDUP_KEY_PREFIX,
    log = () => {},
  } = opts;
  if (!Number.isInteger(ttlSeconds) || ttlSeconds < 1) throw new RangeError("ttlSeconds must be a positive integer");
  if (!(timeoutMs > 0)) throw new RangeError("timeoutMs must be positive");

  const redis = new Redis(opts.url, {
    // Connect below, once the listeners are in place, and handle that first attempt's rejection there.
    lazyConnect: true,
    // A command issued while disconnected fails at once instead of waiting in a queue for the reconnect.
    enableOfflineQueue: false,
    // Replies lost with a connection are failed at that close rather than resent after the reconnect.
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    // Bounds for a server that accepts TCP but stalls: the connect, the handshake, and a pending reply.
    connectTimeout: 1000,
    socketTimeout: 1000,
    commandTimeout: 1000,
    // Never give up: retry quickly first, then every ~2 s; nothing waits on a reconnect, so a dead Redis costs little.
    retryStrategy: (times) => Math.min(50 * 2 ** Math.min(times - 1, 6), 2000) + Math.floor(Math.random() * 100),
    connectionName: "webhook-ledger-dedup",
  });

  let closed = false;
  let skipUntil = 0;
  let inFlight = 0;
  let failing = false;
  let everReady = false;
  let lateInARow = 0;

  // Logged on transitions only: a retry storm against a dead Redis must not become a log storm.
  const trip = (reason: string) => {
    skipUntil = performance.now() + breakerMs;
    if (!failing && !closed) log(`dedup cache: ${reason}; answering from the ledger for now`);
    failing = true;
  };
  const recovered = () => {
    if (failing) log("dedup cache: answering again");
    failing = false;
  };

  redis.on("error", (err: unknown) => trip(describeError(err)));
  redis.on("ready", () => {
    skipUntil = 0;
    if (!everReady) log("dedup cache: connected");
    everReady = true;
    recovered();
  });
  redis.on("close", () => {
    if (everReady && !closed) trip("connection lost");
  });
  redis.connect().catch(() => {}); // the error event has reported it; retryStrategy takes over

  const usable = () => !closed && redis.status === "ready" && inFlight < maxInFlight && performance.now() >= skipUntil;

  const track = <T>(command: Promise<T>): Promise<T> => {
    inFlight++;
    return command.finally(() => inFlight--);
  };

  return {
    seen(source, eventId) {
      if (!usable()) return Promise.resolve(false);
      return new Promise<boolean>((resolve) => {
        let answered = false;
        const answer = (value: boolean) => {
          if (answered) return;
          answered = true;
          clearTimeout(timer);
          resolve(value);
        };
        // When the timer fires, the reply may already sit in the socket, unread because the event loop was busy
        // (GC, other requests): timers run before I/O in a loop turn, so decide one turn later (setImmediate runs
        // after the poll phase has read it). A lone late answer costs one claim; only a run of them trips the breaker.
        const timer = setTimeout(() => {
          setImmediate(() => {
            if (answered) return;
            if (++lateInARow >= LATE_TO_TRIP) trip(`no answer within ${timeoutMs} ms, ${lateInARow} times in a row`);
            answer(false);
          });
        }, timeoutMs);
        try {
          track(redis.exists(dedupCacheKey(keyPrefix, source, eventId))).then(
            (n) => {
              if (answered) return;
              lateInARow = 0;
              recovered();
              answer(n === 1);
            },
            (err: unknown) => {
              trip(describeError(err));
              answer(false);
            },
          );
        } catch (err) {
          trip(describeError(err));
          answer(false);
        }
      });
    },

    mark(source, eventId) {
      if (!usable()) return;
      try {
        track(redis.set(dedupCacheKey(keyPrefix, source, eventId), "1", "EX", ttlSeconds)).then(
          () => {},
          (err: unknown) => trip(describeError(err)),
        );
      } catch (err) {
        trip(describeError(err));
      }
    },

    async close() {
      if (closed) return;
      closed = true;
      if (redis.status === "ready") {
        let timer: ReturnType<typeof setTimeout> | undefined;
        // QUIT lets marks already written reach Redis; a stalled server gets half a second, then the socket goes.
        await Promise.race([redis.quit().catch(() => {}), new Promise<void>((r) => (timer = setTimeout(r, 500)))]);
        clearTimeout(timer);
      }
      redis.disconnect();
    },
  };
}
