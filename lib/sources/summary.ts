import { sql } from "drizzle-orm";
import { arrivalsSql, duplicateArrivalsSql } from "@/db/delivery-arrivals";
import { rowsOf, type Db } from "@/db/client";
import type { RefusalReason } from "@/db/schema/sources";
import { authorize, type Actor } from "@/lib/roles";
import { NotFoundError } from "@/lib/errors";
import { PROVIDERS } from "@/lib/providers";
import type { SourceDirectory } from "./directory";
import { countRefusals, recentRefusals, type RefusalRow } from "./refusals";
import { originLabel, type ResolvedSource, type SourceOrigin } from "./types";

export interface SecretSummary {
  id?: string;
  fingerprint: string;
  createdAt?: Date;
  expiresAt?: Date;
  active: boolean;
}

/** A source as the sources page shows it: never a secret, only fingerprints. */
export interface SourceSummary {
  slug: string;
  provider: string;
  providerLabel: string;
  name: string;
  state: ResolvedSource["state"];
  origin: SourceOrigin;
  originLabel: string;
  /** Declared by the deploy: shown, not changed, in the console. */
  readOnly: boolean;
  /** The path to paste into the provider's dashboard, after the app's public URL. */
  path: string;
  toleranceSeconds?: number;
  options: unknown;
  secrets: SecretSummary[];
  unsealError?: string;
  deliveries24h: number;
  duplicates24h: number;
  lastDeliveryAt?: Date;
  refused24h: number;
  refusals24h: { reason: RefusalReason; count: number }[];
}

const DAY_MS = 24 * 3600 * 1000;

function summarize(
  source: ResolvedSource,
  nowMs: number,
): Omit<SourceSummary, "deliveries24h" | "duplicates24h" | "refused24h" | "refusals24h"> {
  return {
    slug: source.slug,
    provider: source.provider,
    providerLabel: PROVIDERS[source.provider].label,
    name: source.name,
    state: source.state,
    origin: source.origin,
    originLabel: originLabel(source.origin),
    readOnly: source.origin.kind !== "console",
    path: `/api/webhooks/${source.slug}`,
    toleranceSeconds: source.toleranceSeconds,
    options: source.options,
    secrets: source.secrets.map((s) => ({
      id: s.id,
      fingerprint: s.fingerprint,
      createdAt: s.createdAt,
      expiresAt: s.expiresAt,
      active: !s.expiresAt || s.expiresAt.getTime() > nowMs,
    })),
    unsealError: source.unsealError,
  };
}

async function deliveryStats(db: Db, since: Date, slugs: readonly string[]) {
  const rows = rowsOf<{ source: string; deliveries: number; duplicates: number; last: string | Date }>(
    await db.execute(sql`
      select source, ${arrivalsSql()}::int as deliveries, ${duplicateArrivalsSql()}::int as duplicates,
             max(received_at) as last
      from webhook_delivery
      where received_at >= ${since.toISOString()}::timestamptz
      group by source`),
  );
  const out = new Map(rows.map((r) => [r.source, { ...r, last: new Date(r.last) }]));
  // Quiet for a day: the last delivery ever, per quiet source (its own index range, not the table).
  for (const slug of slugs) {
    if (out.has(slug)) continue;
    const [row] = rowsOf<{ last: string | Date | null }>(
      await db.execute(sql`select max(received_at) as last from webhook_delivery where source = ${slug}`),
    );
    if (row?.last) out.set(slug, { source: slug, deliveries: 0, duplicates: 0, last: new Date(row.last) });
  }
  return out;
}

export async function listSources(args: {
  db: Db;
  actor: Actor | undefined;
  sources: SourceDirectory;
  now?: Date;
}): Promise<SourceSummary[]> {
  authorize(args.actor, "sources.read");
  const now = args.now ?? new Date();
  const since = new Date(now.getTime() - DAY_MS);
  const all = await args.sources.list();
  const [stats, refusals] = await Promise.all([
    deliveryStats(
      args.db,
      since,
      all.map((s) => s.slug),
    ),
    countRefusals(args.db, since),
  ]);
  return all.map((source) => {
    const own = refusals.filter((r) => r.source === source.slug);
    const s = stats.get(source.slug);
    return {
      ...summarize(source, now.getTime()),
      deliveries24h: s && s.last >= since ? s.deliveries : 0,
      duplicates24h: s && s.last >= since ? s.duplicates : 0,
      lastDeliveryAt: s?.last,
      refused24h: own.reduce((n, r) => n + r.count, 0),
      refusals24h: own.map((r) => ({ reason: r.reason, count: r.count })),
    };
  });
}

export async function getSource(args: {
  db: Db;
  actor: Actor | undefined;
  sources: SourceDirectory;
  slug: string;
  now?: Date;
}): Promise<SourceSummary & { recentRefusals: RefusalRow[] }> {
  authorize(args.actor, "sources.read");
  const all = await listSources(args);
  const found = all.find((s) => s.slug === args.slug);
  if (!found) throw new NotFoundError(`no source "${args.slug}"`);
  return { ...found, recentRefusals: await recentRefusals(args.db, args.slug) };
}
