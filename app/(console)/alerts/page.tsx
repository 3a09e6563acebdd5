import type { Metadata } from "next";
import type { ReactNode } from "react";
import { PageHeader } from "@/components/page-header";
import { Time } from "@/components/time";
import { utc } from "@/components/utc";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { getAlertsOverview, listAlertDeliveries, listAlertIncidents, type RuleView } from "@/lib/alerts/queries";
import { can } from "@/lib/roles";
import { requirePage } from "../../_lib/session";
import { DeliveriesTable, IncidentsTable } from "./_components/alert-tables";
import { RuleForm } from "./_components/rule-form";

export const metadata: Metadata = { title: "Alerts" };

function originText(r: RuleView): string {
  if (r.origin.kind === "console") return `Set in the console by ${r.origin.by}, ${utc(r.origin.at)} UTC.`;
  if (r.rule === "dead_event") return "On unless turned off here, with or without a channel.";
  return r.enabled ? "On unless turned off here." : "Off until turned on here with a threshold.";
}

function Section({
  id,
  title,
  description,
  children,
}: {
  id: string;
  title: string;
  description?: ReactNode;
  children: ReactNode;
}) {
  return (
    <section className="flex flex-col gap-3" aria-labelledby={id}>
      <div>
        <h2 id={id} className="text-base font-semibold">
          {title}
        </h2>
        {description && <p className="text-xs text-muted-foreground break-words">{description}</p>}
      </div>
      {children}
    </section>
  );
}

function Fact({ term, children, testId }: { term: string; children: ReactNode; testId?: string }) {
  return (
    <>
      <dt className="text-muted-foreground">{term}</dt>
      <dd className="min-w-0 font-mono text-xs leading-5 [overflow-wrap:anywhere]" data-testid={testId}>
        {children}
      </dd>
    </>
  );
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
    <div className="flex flex-col gap-6">
      <PageHeader
        className="mb-0"
        title="Alerts"
        description={
          "Each rule opens an incident once per subject (a dead event, a source, the backlog), tells the channels " +
          "once, and tells them again when it clears. A burst is one message listing the first ten and the count."
        }
      />

      <Section
        id="channels"
        title="Channels"
        description="Set by the deploy's environment; shown here masked, never changed here."
      >
        {!anyChannel && (
          <Alert tone="warning" role="status">
            No channel is set: incidents are recorded below, but nobody is told. Set{" "}
            <code>ALERT_SLACK_WEBHOOK_URL</code> or <code>ALERT_WEBHOOK_URL</code> with{" "}
            <code>ALERT_WEBHOOK_SECRET</code>.
          </Alert>
        )}
        <div className="grid grid-cols-1 gap-4 md:grid-cols-2">
          {overview.channels.map((c) => (
            <article key={c.channel} data-channel={c.channel} aria-label={c.label} className="min-w-0">
              <Card className="h-full">
                <CardHeader>
                  <CardTitle>{c.label}</CardTitle>
                  <Badge tone={c.configured ? "success" : "neutral"}>{c.configured ? "configured" : "not set"}</Badge>
                </CardHeader>
                <CardContent className="flex flex-col gap-3">
                  <dl className="grid grid-cols-[auto_minmax(0,1fr)] gap-x-4 gap-y-1.5 text-sm">
                    <Fact term="Sends to" testId="target">
                      {c.target ?? "—"}
                    </Fact>
                    {c.channel === "webhook" && <Fact term="Secret">{c.secretFingerprint ?? "—"}</Fact>}
                    <Fact term="Set by">{c.variables.join(", ")}</Fact>
                  </dl>
                  {c.problem && (
                    <Alert tone="danger" role="alert">
                      {c.problem}
                    </Alert>
                  )}
                </CardContent>
              </Card>
            </article>
          ))}
        </div>
      </Section>

      <Section
        id="rules"
        title="Rules"
        description={
          <span data-testid="evaluator">
            Evaluated every {Math.round(evaluator.evaluateMs / 1000)} s by the worker;{" "}
            {evaluator.lastRunAt ? (
              <>
                last round <Time value={evaluator.lastRunAt} /> UTC ({evaluator.lastRunBy ?? "?"})
              </>
            ) : (
              "no round has run yet"
            )}
            .
          </span>
        }
      >
        {evaluator.lastError && (
          <Alert tone="danger" role="alert">
            The last evaluation failed: {evaluator.lastError}
          </Alert>
        )}
        <div className="grid grid-cols-1 gap-4 lg:grid-cols-2">
          {overview.rules.map((r) => (
            <article key={r.rule} data-rule={r.rule} aria-label={`Rule ${r.definition.label}`} className="min-w-0">
              <Card className="h-full">
                <CardHeader>
                  <CardTitle className="min-w-0 break-words">
                    {r.definition.label}
                    {r.definition.unit && r.threshold !== null ? ` ${r.threshold} ${r.definition.unit}` : ""}
                  </CardTitle>
                  <span className="flex flex-wrap items-center gap-1.5">
                    <Badge tone={r.enabled ? "success" : "neutral"} data-testid="enabled">
                      {r.enabled ? "on" : "off"}
                    </Badge>
                    {r.firing > 0 && <Badge tone="danger">{r.firing.toLocaleString("en")} firing</Badge>}
                  </span>
                </CardHeader>
                <CardContent className="flex flex-col gap-3 text-sm">
                  <p className="break-words">Fires when {r.description}.</p>
                  <p className="text-xs break-words text-muted-foreground">{originText(r)}</p>
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
                </CardContent>
              </Card>
            </article>
          ))}
        </div>
      </Section>

      <Section id="incidents" title="Recent incidents">
        <IncidentsTable rows={incidents} />
      </Section>

      <Section id="deliveries" title="Recent alert deliveries">
        <DeliveriesTable rows={deliveries} />
      </Section>
    </div>
  );
}
