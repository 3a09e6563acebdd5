import { safeEqualStrings } from "@/lib/providers/crypto";

/** Replay tokens by source; "*" holds REPLAY_TOKEN's bare tokens, which every source accepts. */
export type ReplayTokens = Readonly<Record<string, readonly string[]>>;

/** `scope`: the token is one REPLAY_TOKEN gives this source (`source:token`), or a bare one (lib/replay/confirm.ts). */
export type ReplayVerdict =
  | { ok: true; scope: "source" | "global" }
  | { ok: false; status: 401 | 429; reason: string; retryAfterSeconds?: number };

/**
 * X-Replay-Token stands in for a provider's signature, so it is a key to that source's ledger: compared in
 * constant time against the tokens allowed for this source only, and failures are throttled per source
 * (after `maxFailures` wrong tokens within `windowMs`, 10 a minute by default, the source answers 429 until
 * the oldest ages out), so a guesser gets `maxFailures` tries per window, not one per request.
 * In memory, per process: each instance throttles the guesses it sees.
 */
export class ReplayTokenGuard {
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly tokens: ReplayTokens,
    private readonly opts: { maxFailures?: number; windowMs?: number; now?: () => number } = {},
  ) {}

  check(source: string, header: string): ReplayVerdict {
    // Own keys only: a source may be slugged "constructor", which a plain object also answers to.
    const own = (Object.hasOwn(this.tokens, source) && this.tokens[source]) || [];
    const global = (Object.hasOwn(this.tokens, "*") && this.tokens["*"]) || [];
    if (own.length + global.length === 0)
      return {
        ok: false,
        status: 401,
        reason: `replay token refused: no replay token is configured for "${source}" (REPLAY_TOKEN)`,
      };
    const now = this.opts.now?.() ?? Date.now();
    const windowMs = this.opts.windowMs ?? 60_000;
    const recent = (this.failures.get(source) ?? []).filter((t) => now - t < windowMs);
    if (recent.length >= (this.opts.maxFailures ?? 10)) {
      const retryAfterSeconds = Math.max(1, Math.ceil((recent[0]! + windowMs - now) / 1000));
      return {
        ok: false,
        status: 429,
        reason: `too many wrong replay tokens for "${source}"; retry in ${retryAfterSeconds} s`,
        retryAfterSeconds,
      };
    }
    // Every configured token is compared, so the time taken does not say which one came close.
    let ownMatch = false;
    let globalMatch = false;
    for (const token of own) ownMatch = safeEqualStrings(header, token) || ownMatch;
    for (const token of global) globalMatch = safeEqualStrings(header, token) || globalMatch;
    if (ownMatch || globalMatch) return { ok: true, scope: ownMatch ? "source" : "global" };
    recent.push(now);
    this.failures.set(source, recent);
    return { ok: false, status: 401, reason: "replay token mismatch" };
  }
}
