import type { Metadata } from "next";
import { utc } from "@/components/utc";
import { getAlertsOverview, listAlertDeliveries, listAlertIncidents, type RuleView } from "@/lib/alerts/queries";
import { can } from "@/lib/auth/roles";
import { requirePage } from "../../_lib/session";
import { DeliveriesTable, IncidentsTable } from "./_components/alert-tables";
import { RuleForm } from "./_components/rule-form";

export const metadata: Metadata = { title: "Alerts" };

function originText(r: RuleView): string {
  if (r.origin.kind === "console") return `Set in the console by ${r.origin.by}, ${utc(r.origin.at)} UTC.`;
  if (r.origin.variable) return `The deploy's default, from ${r.origin.variable}.`;
  return r.rule === "dead_event"
    ? "The deploy's default: on when a channel is set (ALERT_DEAD_EVENTS=on or off decides otherwise)."
    : `The deploy's default: off (${r.definition.variable} turns it on).`;
}

export default async function AlertsPage() {
  const { db, actor } = await requirePage("alerts.read", "/alerts");
  const [overview, incidents, deliveries] = await Promise.all([
    getAlertsOverview({ db, actor }),
    listAlertIncidents({ db, actor, limit: 50 }),
    listAlertDeliveries({ db, actor, limit: 50 }),
  ]);
  const canManage = can(actor.role, "alerts.manage");
  const anyChannel = overview.channels.some((c) => c.configured);
  const { evaluator } = overview;
  return (
    <>
      <div className="page-head">
        <h1>Alerts</h1>
      </div>
      <p className="muted">
        Each rule opens an incident once per subject (a dead event, a source, the backlog), tells the channels once, and
        tells them again when it clears. A burst is one message listing the first ten and the count.
      </p>

      <h2>Channels</h2>
      <p className="muted break">Set by the deploy&apos;s environment; shown here masked, never changed here.</p>
      {!anyChannel && (
        <p className="notice error" role="status">
          No channel is set: incidents are recorded below, but nobody is told. Set ALERT_SLACK_WEBHOOK_URL or
          ALERT_WEBHOOK_URL with ALERT_WEBHOOK_SECRET.
        </p>
      )}
      <div className="source-list">
        {overview.channels.map((c) => (
          <article key={c.channel} className="panel source-card" data-channel={c.channel} aria-label={c.label}>
            <div className="source-head">
              <h2 className="flush">{c.label}</h2>
              <span className={`badge ${c.configured ? "ok" : ""}`}>{c.configured ? "configured" : "not set"}</span>
            </div>
            <dl className="facts source-facts">
              <dt>Sends to</dt>
              <dd className="mono break" data-testid="target">
                {c.target ?? "—"}
              </dd>
              {c.channel === "webhook" && (
                <>
                  <dt>Secret</dt>
                  <dd className="mono">{c.secretFingerprint ?? "—"}</dd>
                </>
              )}
              <dt>Set by</dt>
              <dd className="mono break">{c.variables.join(", ")}</dd>
            </dl>
            {c.problem && (
              <p className="notice error source-origin" role="alert">
                {c.problem}
              </p>
            )}
          </article>
        ))}
      </div>

      <h2>Rules</h2>
      <p className="muted break" data-testid="evaluator">
        Evaluated every {Math.round(evaluator.evaluateMs / 1000)} s by the worker;{" "}
        {evaluator.lastRunAt
          ? `last round ${utc(evaluator.lastRunAt)} UTC (${evaluator.lastRunBy ?? "?"})`
          : "no round has run yet"}
        .
      </p>
      {evaluator.lastError && (
        <p className="notice error" role="alert">
          The last evaluation failed: {evaluator.lastError}
        </p>
      )}
      <div className="source-list">
        {overview.rules.map((r) => (
          <article
            key={r.rule}
            className="panel source-card"
            data-rule={r.rule}
            aria-label={`Rule ${r.definition.label}`}
          >
            <div className="source-head">
              <h2 className="flush">
                {r.definition.label}
                {r.definition.unit && r.threshold !== null ? ` ${r.threshold} ${r.definition.unit}` : ""}
              </h2>
              <span className="source-kind">
                <span className={`badge ${r.enabled ? "ok" : ""}`} data-testid="enabled">
                  {r.enabled ? "on" : "off"}
                </span>
                {r.firing > 0 && <span className="badge dead">{r.firing.toLocaleString("en")} firing</span>}
              </span>
            </div>
            <p className="source-origin">Fires when {r.description}.</p>
            <p className="muted source-origin">{originText(r)}</p>
            {canManage && (
              <RuleForm
                rule={r.rule}
                label={r.definition.label}
                unit={r.definition.unit}
                min={r.definition.min}
                max={r.definition.max}
                enabled={r.enabled}
                threshold={r.threshold}
                fromConsole={r.origin.kind === "console"}
              />
            )}
          </article>
        ))}
      </div>

      <h2>Recent incidents</h2>
      <IncidentsTable rows={incidents} />

      <h2>Recent alert deliveries</h2>
      <DeliveriesTable rows={deliveries} />
    </>
  );
}
