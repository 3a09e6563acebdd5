/**
 * The bytes of request bodies the process holds before their signature is checked, across every
 * connection and host at once (WEBHOOK_UNVERIFIED_MAX_BYTES). Each request takes bytes as they are read
 * and gives them all back once its body is read or refused (readBody, ./body.ts); a request that would
 * go past the total is refused (503), so many slow or idle connections each holding a body just under
 * WEBHOOK_MAX_BYTES cannot grow the process without bound.
 */
export interface BodyBudget {
  readonly limit: number;
  /** Bytes held right now. */
  readonly held: number;
  /** The most ever held at once (for tests and benchmarks). */
  readonly peak: number;
  /** A per-request account: everything it took is given back by release() (idempotent). */
  open(): BodyLease;
}

export interface BodyLease {
  /** Takes `bytes` more; false (and nothing taken) when that would pass the budget's limit. */
  take(bytes: number): boolean;
  /** Whether `bytes` more could be taken now (a declared Content-Length, checked before reading). */
  fits(bytes: number): boolean;
  readonly taken: number;
  release(): void;
}

export function createBodyBudget(limit: number): BodyBudget {
  let held = 0;
  let peak = 0;
  return {
    limit,
    get held() {
      return held;
    },
    get peak() {
      return peak;
    },
    open() {
      let taken = 0;
      let released = false;
      return {
        get taken() {
          return taken;
        },
        fits: (bytes) => !released && held + bytes <= limit,
        take(bytes) {
          if (released || held + bytes > limit) return false;
          held += bytes;
          taken += bytes;
          if (held > peak) peak = held;
          return true;
        },
        release() {
          if (released) return;
          released = true;
          held -= taken;
          taken = 0;
        },
      };
    },
  };
}
