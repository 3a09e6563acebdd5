/**
 * The search-directory rows this process has seen committed, so a settle does not send them again: a customer's
 * events carry the same ids and name, and each one's terms cost the settle an insert that finds them there
 * (bench:worker). Keys are the insert's own inputs (the term as found, and its subject), so a skipped row is
 * exactly one the insert would have skipped.
 *
 * Only an erasure deletes directory rows. It advances `subject_term_epoch` before it deletes; the directory's
 * statement reads the epoch, and a different one empties the cache and sends what it had skipped (./subject-terms.ts).
 */
export interface TermCache {
  /** The epoch the entries were confirmed under; undefined before the first statement. */
  readonly epoch: string | undefined;
  has(key: string): boolean;
  /** Forget everything: the directory may have lost rows since `epoch` was read. */
  reset(epoch: string): void;
  /** Rows a committed transaction left in the directory, read under `epoch` (ignored if the epoch moved on). */
  remember(keys: readonly string[], epoch: string): void;
  readonly size: number;
}

export const termKey = (text: string, subject: string): string => `${text}\u0000${subject}`;

/** At most `max` keys (about 100 bytes each); the oldest are dropped first. */
export function createTermCache(max = 100_000): TermCache {
  let epoch: string | undefined;
  let keys = new Set<string>();
  return {
    get epoch() {
      return epoch;
    },
    get size() {
      return keys.size;
    },
    has: (key) => keys.has(key),
    reset(next) {
      epoch = next;
      keys = new Set();
    },
    remember(added, at) {
      if (at !== epoch) return;
      for (const k of added) {
        if (keys.has(k)) continue;
        if (keys.size >= max) keys.delete(keys.values().next().value!);
        keys.add(k);
      }
    },
  };
}
