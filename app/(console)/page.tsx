import type { Metadata } from "next";
import { PageHeader } from "@/components/page-header";
import { getDeliverySeries } from "@/lib/console/delivery-series";
import { getBacklog, getFailingTypes, getStatusCounts, listDeadEvents } from "@/lib/console/overview";
import { EVENT_STATUSES, type EventStatus } from "@/lib/console/statuses";
import { requirePage } from "../_lib/session";
import { AlertsSummary } from "./_components/alerts-summary";
import { DeadEvents } from "./_components/dead-events";
import { DeliveryPanel } from "./_components/delivery-panel";
import { FailingTypes } from "./_components/failing-types";
import { OpenTies } from "./_components/open-ties";
import { RetentionSummary } from "./_components/retention-summary";
import { StatCard } from "./_components/stat-card";
import { shownCounts } from "./_components/status-counts";

export const metadata: Metadata = { title: "Overview" };

/** 10-minute buckets: 144 bars for a day, each wide enough to hover on a phone. */
const BUCKET_MINUTES = 10;

const STATUS_CARDS: Record<EventStatus, { label: string; hint: string; tone?: "warning" | "danger" }> = {
  claimed: { label: "Waiting", hint: "claimed, not yet worked" },
  processing: { label: "Processing", hint: "a worker holds the lease" },
  settled: { label: "Settled", hint: "applied, stale or ignored" },
  failed: { label: "Retrying", hint: "last attempt failed", tone: "warning" },
  dead: { label: "Dead", hint: "waiting for a person", tone: "danger" },
};

function age(from: Date | null, now: Date): string {
  if (!from) return "—";
  const s = Math.max(0, Math.round((now.getTime() - from.getTime()) / 1000));
  if (s < 90) return `${s} s`;
  if (s < 90 * 60) return `${Math.round(s / 60)} min`;
  if (s < 48 * 3600) return `${(s / 3600).toFixed(1)} h`;
  return `${Math.round(s / 86400)} d`;
}

export default async function OverviewPage() {
  const { db, actor } = await requirePage("events.read", "/");
  const now = new Date();
  const [statusCounts, backlog, series, failing, dead] = await Promise.all([
    getStatusCounts(db, actor),
    getBacklog(db, actor),
    getDeliverySeries(db, actor, { hours: 24, bucketMinutes: BUCKET_MINUTES, now }),
    getFailingTypes(db, actor),
    listDeadEvents(db, actor),
  ]);
  const { counts, estimated } = shownCounts(statusCounts);
  const { deliveries, duplicates } = series.totals;
  return (
    <>
      <PageHeader title="Overview" description="What the ledger holds and owes right now. Times are UTC." />
      <div className="flex flex-col gap-6">
        <div className="grid grid-cols-2 gap-3 lg:grid-cols-4" aria-label="Counts">
          {EVENT_STATUSES.map((status) => {
            const card = STATUS_CARDS[status];
            const n = counts[status];
            return (
              <StatCard
                key={status}
                id={status}
                label={card.label}
                hint={card.hint}
                value={n.toLocaleString("en")}
                estimated={estimated.has(status)}
                tone={n > 0 ? card.tone : undefined}
                href={`/events?status=${status}`}
              />
            );
          })}
          <StatCard
            id="backlog"
            label="Backlog"
            value={backlog.size.toLocaleString("en")}
            hint={`${backlog.dueNow.toLocaleString("en")} due now`}
            href="/events?status=claimed,processing,failed"
          />
          <StatCard
            id="oldest-pending"
            label="Oldest pending"
            value={age(backlog.oldestReceivedAt, now)}
            hint="since received"
          />
          <StatCard
            id="duplicate-rate"
            label="Duplicate rate, 24 h"
            value={deliveries ? `${((duplicates / deliveries) * 100).toFixed(1)} %` : "—"}
            hint={`${duplicates.toLocaleString("en")} of ${deliveries.toLocaleString("en")} deliveries`}
          />
        </div>

        <DeliveryPanel series={series} />

        <div className="grid grid-cols-1 gap-6 lg:grid-cols-2">
          <FailingTypes rows={failing} />
          <DeadEvents dead={dead} />
        </div>

        <OpenTies db={db} actor={actor} />

        <div className="grid grid-cols-1 gap-6 lg:grid-cols-2">
          <RetentionSummary db={db} actor={actor} />
          <AlertsSummary db={db} actor={actor} />
        </div>
      </div>
    </>
  );
}
