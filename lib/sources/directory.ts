import { asc, eq } from "drizzle-orm";
import type { Db } from "@/db/client";
import { webhookSource, webhookSourceSecret, type SourceState } from "@/db/schema/sources";
import { describeError, UnavailableError } from "@/lib/errors";
import { PROVIDERS } from "@/lib/providers";
import { isProviderKind, type ProviderKind } from "@/lib/providers/types";
import type { SecretBox } from "./secret-box";
import type { ResolvedSource, SourceSecret } from "./types";

/**
 * Every source this process knows: the deploy's declared ones (fixed at start-up) and the console's
 * (rows in webhook_source, read again when this process changes one, when a slug is missed, and at
 * most `refreshMs` after the last read, so other instances see a change within that).
 */
export interface SourceDirectory {
  /** The source at `slug`, or undefined. Waits for the console's sources only on first use or a miss. */
  find(slug: string): Promise<ResolvedSource | undefined>;
  /**
   * The deploy's declared source at `slug`, without reading the database: for a verb inside a
   * transaction (PGlite has one connection, so a read through the pool there would wait on itself).
   */
  declared(slug: string): ResolvedSource | undefined;
  /** Every source, declared first. */
  list(): Promise<ResolvedSource[]>;
  /**
   * The provider kind of a slug as known now, without waiting: declared, console, or a slug named after
   * a kind (events from before sources had slugs). Undefined: not known (yet).
   */
  kindOf(slug: string): ProviderKind | undefined;
  /** After a change made by this process: the next find or list reads the table again. */
  invalidate(): void;
}

export interface DirectoryOptions {
  declared: readonly ResolvedSource[];
  /** The console's sources; absent: declared sources only (a test, or a tool without a database). */
  getDb?: () => Promise<Db>;
  /** Absent: console secrets cannot be opened (LEDGER_SECRET_KEY unset); their sources say so. */
  box?: SecretBox;
  refreshMs?: number;
  /** A miss reads the table again at most this often (a flood of unknown slugs costs one query a second). */
  missRefreshMs?: number;
  log?: (message: string) => void;
}

export function createSourceDirectory(opts: DirectoryOptions): SourceDirectory {
  const declared = new Map(opts.declared.map((s) => [s.slug, s]));
  const refreshMs = opts.refreshMs ?? 5000;
  const missRefreshMs = opts.missRefreshMs ?? 1000;
  let console_: Map<string, ResolvedSource> | undefined;
  let loadedAt = -Infinity;
  let loading: Promise<Map<string, ResolvedSource>> | undefined;

  const load = () => {
    loading ??= (async () => {
      try {
        const db = await opts.getDb!();
        const rows = await readConsoleSources(db, opts.box);
        console_ = new Map(rows.filter((r) => !declared.has(r.slug)).map((r) => [r.slug, r]));
        loadedAt = performance.now();
        return console_;
      } finally {
        loading = undefined;
      }
    })();
    return loading;
  };

  /** The console's sources, fresh enough; a failed read keeps the last good copy (said once in the log). */
  const current = async (mode: "fresh-enough" | "read-now"): Promise<Map<string, ResolvedSource>> => {
    if (!opts.getDb) return new Map();
    const age = performance.now() - loadedAt;
    if (console_ && mode === "fresh-enough" && age <= refreshMs) return console_;
    if (console_ && mode === "fresh-enough" && age <= 2 * refreshMs) {
      // Stale but recent: answer from it, read again behind.
      load().catch((err: unknown) => opts.log?.(`could not read the console's sources: ${describeError(err)}`));
      return console_;
    }
    try {
      return await load();
    } catch (err) {
      if (console_) {
        opts.log?.(
          `could not read the console's sources, using the copy from ${Math.round(age)} ms ago: ${describeError(err)}`,
        );
        return console_;
      }
      throw new UnavailableError("the sources could not be read", 1, { cause: err });
    }
  };

  return {
    async find(slug) {
      const fixed = declared.get(slug);
      if (fixed) return fixed;
      const known = (await current("fresh-enough")).get(slug);
      if (known || !opts.getDb) return known;
      // Added a moment ago by another instance? Read again, but not more than once a missRefreshMs.
      if (performance.now() - loadedAt < missRefreshMs) return undefined;
      return (await current("read-now")).get(slug);
    },
    declared(slug) {
      return declared.get(slug);
    },
    async list() {
      return [...declared.values(), ...(await current("fresh-enough")).values()];
    },
    kindOf(slug) {
      const known = declared.get(slug) ?? console_?.get(slug);
      if (known) return known.provider;
      if (opts.getDb && performance.now() - loadedAt > refreshMs) load().catch(() => undefined);
      return isProviderKind(slug) && slug !== "generic" ? slug : undefined;
    },
    invalidate() {
      loadedAt = -Infinity;
    },
  };
}

/** A fixed set of sources (tests, tools): nothing to read. */
export function staticSourceDirectory(sources: readonly ResolvedSource[]): SourceDirectory {
  return createSourceDirectory({ declared: sources });
}

async function readConsoleSources(db: Db, box: SecretBox | undefined): Promise<ResolvedSource[]> {
  const rows = await db
    .select({ source: webhookSource, secret: webhookSourceSecret })
    .from(webhookSource)
    .leftJoin(webhookSourceSecret, eq(webhookSourceSecret.source, webhookSource.slug))
    .orderBy(asc(webhookSource.slug), asc(webhookSourceSecret.createdAt));
  const out = new Map<string, ResolvedSource & { secrets: SourceSecret[] }>();
  for (const { source, secret } of rows) {
    let entry = out.get(source.slug);
    if (!entry) {
      if (!isProviderKind(source.provider)) continue; // written by a newer version: not ours to guess
      let options: unknown = source.options;
      try {
        options = PROVIDERS[source.provider].parseOptions?.(source.options) ?? {};
      } catch {
        // Checked when saved; a row that no longer parses keeps its raw options and fails verification.
      }
      entry = {
        slug: source.slug,
        provider: source.provider,
        name: source.name,
        state: source.state as SourceState,
        toleranceSeconds: source.toleranceSeconds ?? undefined,
        options,
        secrets: [],
        origin: { kind: "console" },
      };
      out.set(source.slug, entry);
    }
    if (!secret) continue;
    if (!box) {
      entry.unsealError = "LEDGER_SECRET_KEY is not set: this source's secrets cannot be opened";
      continue;
    }
    try {
      entry.secrets.push({
        value: box.open(secret.sealed, `${source.slug}/${secret.id}`),
        fingerprint: secret.fingerprint,
        id: secret.id,
        createdAt: secret.createdAt,
        expiresAt: secret.expiresAt ?? undefined,
      });
    } catch (err) {
      entry.unsealError = describeError(err);
    }
  }
  return [...out.values()];
}
