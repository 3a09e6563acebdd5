/**
 * Whether the intake's claims are slow right now, for a worker in the same process to yield to: a backlog drained
 * beside the receiver must not starve live deliveries of the event loop, the cores or the disk (a drain at full
 * speed holds every claim up; docs/benchmarks.md has the figures). A claim statement slower than STRAIN_MS,
 * or a claim that timed out, marks the intake strained for HOLD_MS.
 */
export const STRAIN_MS = 100;
export const HOLD_MS = 2000;

let strainedUntil = -Infinity;

export function noteClaimTime(ms: number, now = performance.now()): void {
  if (ms >= STRAIN_MS) strainedUntil = Math.max(strainedUntil, now + HOLD_MS);
}

export const intakeStrained = (now = performance.now()): boolean => now < strainedUntil;

/** For tests: forget any strain noted. */
export function resetIntakeStrain(): void {
  strainedUntil = -Infinity;
}
