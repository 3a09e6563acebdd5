import { utc } from "@/components/utc";
import type { DeliveryRow, IncidentRow } from "@/lib/alerts/queries";

const RULE_WORDS: Record<IncidentRow["rule"], string> = {
  dead_event: "dead event",
  backlog_age: "backlog age",
  refusal_rate: "refusals",
  source_silent: "silent source",
};

/** Firing first in importance, then resolved: what happened, to what, and when it cleared. */
export function IncidentsTable({ rows }: { rows: IncidentRow[] }) {
  if (rows.length === 0) return <p className="panel muted">No incidents yet.</p>;
  return (
    <div className="table-wrap">
      <table className="data alert-incidents">
        <thead>
          <tr>
            <th>State</th>
            <th>Rule</th>
            <th>Subject</th>
            <th>Summary</th>
            <th>Opened (UTC)</th>
            <th>Resolved (UTC)</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.id} data-incident={r.id} data-state={r.state} data-rule={r.rule}>
              <td>
                <span className={`badge ${r.state === "firing" ? "dead" : "ok"}`}>{r.state}</span>
              </td>
              <td className="nowrap">{RULE_WORDS[r.rule]}</td>
              <td className="mono clip" title={r.subject}>
                {r.subject}
              </td>
              <td className="break" style={{ minWidth: 240 }}>
                {r.summary}
              </td>
              <td className="mono nowrap">{utc(r.openedAt)}</td>
              <td className="mono">
                {r.resolvedAt ? <span className="nowrap">{utc(r.resolvedAt)}</span> : "—"}
                {r.resolution && <div className="muted break">{r.resolution}</div>}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function deliveryState(d: DeliveryRow): { word: string; badge: string } {
  if (d.status === "sent") return { word: "sent", badge: "ok" };
  if (d.status === "failed") return { word: "gave up", badge: "dead" };
  if (d.status === "sending") return { word: "sending", badge: "processing" };
  return d.attempts === 0 ? { word: "queued", badge: "claimed" } : { word: "retrying", badge: "failed" };
}

const CHANNEL_WORDS: Record<DeliveryRow["channel"], string> = { slack: "Slack", webhook: "Webhook" };

/** Each message to each channel: how it went, how many attempts, and the last error (never the answer's body). */
export function DeliveriesTable({ rows }: { rows: DeliveryRow[] }) {
  if (rows.length === 0) return <p className="panel muted">No alert has been sent yet.</p>;
  return (
    <div className="table-wrap">
      <table className="data alert-deliveries">
        <thead>
          <tr>
            <th>Queued (UTC)</th>
            <th>Channel</th>
            <th>Message</th>
            <th>Status</th>
            <th className="num">Attempts</th>
            <th>Sent / next try (UTC)</th>
            <th>Last error</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((d) => {
            const s = deliveryState(d);
            return (
              <tr key={d.id} data-delivery={d.id} data-status={d.status} data-channel={d.channel}>
                <td className="mono nowrap">{utc(d.createdAt)}</td>
                <td>{CHANNEL_WORDS[d.channel]}</td>
                <td className="break" style={{ minWidth: 240 }}>
                  <span className="muted">{d.kind === "firing" ? "Firing: " : ""}</span>
                  {d.summary}
                </td>
                <td>
                  <span className={`badge ${s.badge}`}>{s.word}</span>
                </td>
                <td className="num" data-count="attempts">
                  {d.attempts}
                </td>
                <td className="mono nowrap">
                  {d.sentAt ? utc(d.sentAt) : d.status === "pending" ? `next ${utc(d.nextAttemptAt)}` : "—"}
                </td>
                <td>
                  {d.lastError && (
                    <div className="error">
                      {d.lastError}
                      {d.lastStatus !== null &&
                        !d.lastError.includes(String(d.lastStatus)) &&
                        ` (HTTP ${d.lastStatus})`}
                    </div>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
