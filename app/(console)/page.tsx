import type { Metadata } from "next";
import Link from "next/link";
import { DeliveryChart } from "@/components/delivery-chart";
import { EVENT_STATUSES } from "@/lib/ledger/statuses";
import { getBacklog, getDeliveryRate, getFailingTypes, getStatusCounts, listDeadEvents } from "@/lib/ledger/overview";
import { utc } from "@/components/utc";
import type { Db } from "@/db/client";
import type { Actor } from "@/lib/auth/roles";
import { getEnv } from "@/lib/env";
import { getRetentionPreview } from "@/lib/retention/preview";
import { listRetentionRuns } from "@/lib/retention/runs";
import { retentionSettingsFromEnv } from "@/lib/retention/settings";
import { requirePage } from "../_lib/session";
import { OpenTies } from "./_components/open-ties";
import { eventHref } from "./events/_components/links";

export const metadata: Metadata = { title: "Overview" };

function age(from: Date | null, now: Date): string {
  if (!from) return "—";
  const s = Math.max(0, Math.round((now.getTime() - from.getTime()) / 1000));
  if (s < 90) return `${s} s`;
  if (s < 90 * 60) return `${Math.round(s / 60)} min`;
  if (s < 48 * 3600) return `${(s / 3600).toFixed(1)} h`;
  return `${Math.round(s / 86400)} d`;
}

/** What retention will do next and what its last run did (lib/retention). */
async function RetentionPanel({ db, actor }: { db: Db; actor: Actor }) {
  const env = getEnv();
  const settings = retentionSettingsFromEnv(env);
  const [preview, [last]] = await Promise.all([
    getRetentionPreview(db, actor, settings),
    listRetentionRuns(db, actor, 1),
  ]);
  const count = (v: number) => `${v.toLocaleString("en")}${preview.cap !== undefined && v >= preview.cap ? "+" : ""}`;
  const took = last?.finishedAt
    ? ((last.finishedAt.getTime() - last.startedAt.getTime()) / 1000).toFixed(1)
    : undefined;
  return (
    <section aria-label="Retention">
      <h2>Retention</h2>
      <div className="panel">
        <p>
          Settled events are kept {settings.retentionDays} days, then pruned to a tombstone kept{" "}
          {settings.tombstoneDays} days (a late retry stays a duplicate). Failed and dead events are never pruned.{" "}
          {env.RETENTION_INTERVAL_MINUTES > 0
            ? `The worker runs it every ${env.RETENTION_INTERVAL_MINUTES} min.`
            : "Not scheduled here: run npm run prune."}
        </p>
        <p data-testid="retention-preview">
          A run now would prune <strong>{count(preview.events)}</strong> settled events received before{" "}
          {utc(preview.cutoffs.events)} UTC, {count(preview.tombstones)} tombstones, {count(preview.replayRuns)} replay
          runs and {count(preview.auditRows)} audit rows. Oldest settled event: {utc(preview.oldestSettledAt)}.
          {preview.keptUnsettled > 0 ? ` Kept though older: ${count(preview.keptUnsettled)} failed or dead.` : ""}
        </p>
        <p data-testid="retention-last-run" className="muted">
          {last
            ? `Last run ${utc(last.startedAt)} UTC by ${last.actor}: ${last.status}, ${last.events.toLocaleString("en")} events pruned (${last.deliveries.toLocaleString("en")} deliveries, ${last.attempts.toLocaleString("en")} attempts, ${last.transitions.toLocaleString("en")} timeline rows), ${last.tombstones.toLocaleString("en")} tombstones expired${took ? `, in ${took} s` : ", still running"}${last.error ? `: ${last.error}` : ""}.`
            : "Retention has not run yet."}
        </p>
      </div>
    </section>
  );
}

export default async function OverviewPage() {
  const { db, actor } = await requirePage("events.read", "/");
  const now = new Date();
  const [{ counts, settledApproximate }, backlog, minutes, failing, dead] = await Promise.all([
    getStatusCounts(db, actor),
    getBacklog(db, actor),
    getDeliveryRate(db, actor),
    getFailingTypes(db, actor),
    listDeadEvents(db, actor),
  ]);
  const deliveries = minutes.reduce((n, m) => n + m.deliveries, 0);
  const duplicates = minutes.reduce((n, m) => n + m.duplicates, 0);
  return (
    <>
      <h1>Overview</h1>
      <div className="grid">
        {EVENT_STATUSES.map((status) => (
          <Link key={status} href={`/events?status=${status}`} className="panel stat">
            <div className="label">{status}</div>
            <div className="value">
              {status === "settled" && settledApproximate ? "≈ " : ""}
              {counts[status].toLocaleString("en")}
            </div>
          </Link>
        ))}
        <div className="panel stat">
          <div className="label">backlog</div>
          <div className="value">{backlog.size.toLocaleString("en")}</div>
          <div className="sub">{backlog.dueNow.toLocaleString("en")} due now</div>
        </div>
        <div className="panel stat">
          <div className="label">oldest pending</div>
          <div className="value">{age(backlog.oldestReceivedAt, now)}</div>
          <div className="sub">since received</div>
        </div>
        <div className="panel stat">
          <div className="label">duplicate rate, 24 h</div>
          <div className="value">{deliveries ? `${((duplicates / deliveries) * 100).toFixed(1)} %` : "—"}</div>
          <div className="sub">
            {duplicates.toLocaleString("en")} of {deliveries.toLocaleString("en")} deliveries
          </div>
        </div>
      </div>

      <h2>Deliveries per minute, last 24 h (UTC)</h2>
      <div className="panel">
        <DeliveryChart minutes={minutes} now={now} />
      </div>

      <div className="two-col">
        <section>
          <h2>Failing most</h2>
          <table>
            <thead>
              <tr>
                <th>Source</th>
                <th>Type</th>
                <th className="num">Failed</th>
                <th className="num">Dead</th>
              </tr>
            </thead>
            <tbody>
              {failing.map((f) => (
                <tr key={`${f.source}/${f.eventType}`}>
                  <td>{f.source}</td>
                  <td className="mono">
                    <Link
                      href={`/events?${new URLSearchParams({ source: f.source, type: f.eventType, status: "failed,dead" }).toString()}`}
                    >
                      {f.eventType}
                    </Link>
                  </td>
                  <td className="num">{f.failed}</td>
                  <td className="num">{f.dead}</td>
                </tr>
              ))}
              {failing.length === 0 && (
                <tr>
                  <td colSpan={4} className="muted empty">
                    Nothing failing.
                  </td>
                </tr>
              )}
            </tbody>
          </table>
        </section>
        <section>
          <h2>
            Dead, waiting for a person{" "}
            {dead.total > 0 && (
              <Link className="small" href="/events?status=dead">
                all {dead.total.toLocaleString("en")}
                {dead.more ? "+" : ""} →
              </Link>
            )}
          </h2>
          <table>
            <thead>
              <tr>
                <th>Event</th>
                <th>Type</th>
                <th>Last error</th>
              </tr>
            </thead>
            <tbody>
              {dead.rows.map((d) => (
                <tr key={`${d.source}/${d.eventId}`}>
                  <td className="mono clip">
                    <Link href={eventHref(d)}>{d.eventId}</Link>
                  </td>
                  <td className="mono">{d.eventType}</td>
                  <td className="error-cell">{d.lastError}</td>
                </tr>
              ))}
              {dead.rows.length === 0 && (
                <tr>
                  <td colSpan={3} className="muted empty">
                    No dead events.
                  </td>
                </tr>
              )}
            </tbody>
          </table>
        </section>
      </div>

      <OpenTies db={db} actor={actor} />
      <RetentionPanel db={db} actor={actor} />
    </>
  );
}
