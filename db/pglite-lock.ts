/**
 * PGlite has no postmaster: two processes opening one data folder both write to it and silently
 * diverge (then damage it). So a process takes `<dir>.lock` before opening and the next one refuses.
 * A lock whose process has died (killed, crashed) is taken over. Also here: the one-line reason a
 * folder cannot be opened, instead of PGlite's "Aborted()".
 */

import { readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import path from "node:path";

/** What a lock file holds: who took it, for the refusal message and the liveness check. */
export interface LockHolder {
  pid: number;
  hostname: string;
  startedAt: string;
  command?: string;
}

export interface PgliteLock {
  path: string;
  release: () => void;
}

export class PgliteLockedError extends Error {
  constructor(
    readonly dir: string,
    readonly lockPath: string,
    readonly holder: LockHolder | undefined,
  ) {
    super(lockedMessage(dir, lockPath, holder));
    this.name = "PgliteLockedError";
  }
}

/** A lock file this young that does not parse yet is another process writing it right now. */
const WRITING_GRACE_MS = 5000;

// Next builds several bundles that each load this module; the set of locks held must be one per process.
const globalForLocks = globalThis as unknown as { __pgliteLocks?: Set<string> };
const heldHere = (globalForLocks.__pgliteLocks ??= new Set<string>());

export function lockPathFor(dir: string): string {
  return `${path.resolve(dir)}.lock`;
}

/** Takes the folder's lock, or throws PgliteLockedError naming the live process that has it. */
export function acquirePgliteLock(dir: string): PgliteLock {
  const lockPath = lockPathFor(dir);
  const mine: LockHolder = {
    pid: process.pid,
    hostname: hostname(),
    startedAt: new Date().toISOString(),
    command: commandLine(),
  };
  const content = JSON.stringify(mine);
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      writeFileSync(lockPath, content, { flag: "wx", mode: 0o644 });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      const raw = readIfExists(lockPath);
      if (raw === undefined) continue; // released meanwhile
      if (isLive(raw, lockPath)) throw new PgliteLockedError(dir, lockPath, parseHolder(raw));
      takeOver(lockPath, raw);
      continue;
    }
    heldHere.add(lockPath);
    const release = () => {
      process.removeListener("exit", release);
      if (!heldHere.delete(lockPath)) return;
      // Only our own file: after a takeover the lock on disk may be someone else's.
      if (readIfExists(lockPath) === content) unlinkQuietly(lockPath);
    };
    process.on("exit", release);
    return { path: lockPath, release };
  }
  throw new PgliteLockedError(dir, lockPath, parseHolder(readIfExists(lockPath) ?? ""));
}

export class PgliteOpenError extends Error {
  constructor(
    readonly dir: string,
    readonly reason: string,
    options?: ErrorOptions,
  ) {
    super(
      `the embedded database in ${dir} cannot be opened (damaged?): ${reason}. ` +
        `Move it aside or delete it to start over (deleting .data/ resets the quick start too), or set DATABASE_URL to use PostgreSQL.`,
      options,
    );
    this.name = "PgliteOpenError";
  }
}

/**
 * PGlite only throws "Aborted()" or "failed to initialize"; PostgreSQL's last FATAL/PANIC line
 * (and its DETAIL) in the log it printed while starting says what is wrong.
 */
export function pgliteOpenError(dir: string, err: unknown, log: readonly string[]): PgliteOpenError {
  const at = log.findLastIndex((l) => /\b(FATAL|PANIC):/.test(l));
  const strip = (l: string | undefined, tag: string) =>
    l?.match(new RegExp(`\\b${tag}:\\s+(.*)$`))?.[1]?.replaceAll("/pglite/data", dir);
  const fatal = at >= 0 ? strip(log[at], "(?:FATAL|PANIC)") : undefined;
  const detail = at >= 0 ? strip(log[at + 1], "DETAIL") : undefined;
  const thrown = (err instanceof Error ? err.message : String(err))
    .replace(/\.? Build with -sASSERTIONS.*$/, "")
    .replace(/^Aborted\(\)$/, "PostgreSQL aborted");
  const reason = fatal ? (detail ? `${fatal} (${detail.replace(/\.$/, "")})` : fatal) : thrown;
  return new PgliteOpenError(dir, reason.replace(/\.$/, ""), { cause: err });
}

function isLive(raw: string, lockPath: string): boolean {
  const holder = parseHolder(raw);
  if (!holder) return ageMs(lockPath) < WRITING_GRACE_MS;
  // We cannot see another machine's processes (a shared folder): assume it is running.
  if (holder.hostname !== hostname()) return true;
  // Our own pid but not held by us: a restarted container reusing the pid of the process that left it.
  if (holder.pid === process.pid) return heldHere.has(lockPath);
  try {
    process.kill(holder.pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM"; // alive, another user's
  }
}

/** Moves the stale file aside and checks it was the one judged stale, not a lock just taken by a racer. */
function takeOver(lockPath: string, staleRaw: string): void {
  const aside = `${lockPath}.${process.pid}.stale`;
  try {
    renameSync(lockPath, aside);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return;
    throw err;
  }
  if (readIfExists(aside) === staleRaw) unlinkQuietly(aside);
  else renameSync(aside, lockPath);
}

function parseHolder(raw: string): LockHolder | undefined {
  try {
    const v = JSON.parse(raw) as Partial<LockHolder>;
    if (typeof v.pid === "number" && Number.isInteger(v.pid) && v.pid > 0 && typeof v.hostname === "string")
      return {
        pid: v.pid,
        hostname: v.hostname,
        startedAt: String(v.startedAt ?? "?"),
        command: typeof v.command === "string" ? v.command : undefined,
      };
  } catch {
    // not (yet) JSON
  }
  return undefined;
}

function lockedMessage(dir: string, lockPath: string, holder: LockHolder | undefined): string {
  const who = holder
    ? `process ${holder.pid}${holder.command ? ` (${holder.command})` : ""}` +
      `${holder.hostname === hostname() ? "" : ` on ${holder.hostname}`}, since ${holder.startedAt}`
    : "another process";
  return (
    `the embedded database in ${dir} is in use by ${who}. ` +
    `Stop that process first (a running \`npm run quickstart\`, \`npm run dev\` or \`npm start\`), ` +
    `or set DATABASE_URL to use PostgreSQL. ` +
    `If that process is not running any more, delete ${lockPath}.`
  );
}

/** What to look for in `ps`: a title a process gave itself (next-server), else its script and arguments. */
function commandLine(): string {
  if (!/(^|[/\\])node(\.exe)?$/.test(process.title)) return process.title.slice(0, 120);
  return process.argv
    .slice(1)
    .map((a, i) => (i === 0 ? path.basename(a) : a))
    .join(" ")
    .slice(0, 120);
}

function readIfExists(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
}

function ageMs(file: string): number {
  try {
    return Date.now() - statSync(file).mtimeMs;
  } catch {
    return Infinity;
  }
}

function unlinkQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // already gone
  }
}
