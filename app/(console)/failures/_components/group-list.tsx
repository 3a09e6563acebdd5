import Link from "@/components/link";
import { Time } from "@/components/time";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { cn } from "@/components/ui/cn";
import type { FailureGroup } from "@/lib/console/failure-groups";
import { eventHref } from "../../events/_components/links";
import { ListSection } from "./list-section";
import { groupEventsHref } from "./params";
import { RequeueGroup } from "./requeue-group";

export type GroupView = Omit<FailureGroup, "firstSeen" | "lastSeen"> & { firstSeen: string; lastSeen: string };

const KIND = {
  permanent: { label: "permanent", tone: "danger", hint: "No retry can help until the cause is fixed (data or code)" },
  transient: { label: "transient", tone: "warning", hint: "A retry may succeed (a timeout, a dropped connection)" },
} as const;

const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString("en")} ${n === 1 ? one : many}`;

function Tabs({ status, tabHref }: { status: "dead" | "failed"; tabHref: (tab: "dead" | "retrying") => string }) {
  const tab = (id: "dead" | "retrying", label: string, active: boolean) => (
    <Link
      href={tabHref(id)}
      aria-current={active ? "page" : undefined}
      className={cn(
        "rounded-md px-2.5 py-1 text-sm font-medium whitespace-nowrap text-muted-foreground hover:text-foreground",
        active && "bg-card text-foreground shadow-xs",
      )}
    >
      {label}
    </Link>
  );
  return (
    <nav aria-label="Which failures" className="inline-flex w-fit items-center gap-1 rounded-lg bg-muted p-1">
      {tab("dead", "Dead", status === "dead")}
      {tab("retrying", "Retrying", status === "failed")}
    </nav>
  );
}

/** Failures grouped by source, type, error kind and message pattern: fix one cause, then requeue its group. */
export function GroupList({
  groups,
  status,
  mayAct,
  scanned,
  capped,
  cap,
  totalGroups,
  tabHref,
}: {
  groups: GroupView[];
  status: "dead" | "failed";
  mayAct: boolean;
  scanned: number;
  capped: boolean;
  cap: number;
  totalGroups: number;
  tabHref: (tab: "dead" | "retrying") => string;
}) {
  const what = status === "dead" ? "dead" : "retrying";
  const summary = capped
    ? `≥ ${cap.toLocaleString("en")} ${what} events: the groups count the newest ${cap.toLocaleString("en")}, so each count is at least that.`
    : scanned === 0
      ? undefined
      : `${plural(scanned, `${what} event`)} in ${plural(totalGroups, "group")}${totalGroups > groups.length ? `; the largest ${groups.length} here` : ""}.`;
  return (
    <ListSection
      id="failure-groups"
      title="Failure groups"
      description={`Same source, type, error kind and message (ids and numbers aside).${summary ? ` ${summary}` : ""}`}
      actions={<Tabs status={status} tabHref={tabHref} />}
    >
      {groups.length === 0 ? (
        <div className="rounded-lg border bg-card p-6 text-center text-sm text-muted-foreground">
          {status === "dead" ? "No groups: nothing is dead." : "Nothing is retrying."}
        </div>
      ) : (
        <div className="grid grid-cols-1 gap-4 lg:grid-cols-2">
          {groups.map((g) => {
            const kind = KIND[g.errorKind];
            const label = `${g.source} ${g.eventType}: ${g.example}`;
            return (
              <Card key={`${g.source}|${g.eventType}|${g.errorKind}|${g.pattern}`} data-group aria-label={label}>
                <CardHeader className="flex-nowrap">
                  <div className="min-w-0">
                    <CardTitle className="font-mono break-all">{g.eventType}</CardTitle>
                    <CardDescription className="flex flex-wrap items-center gap-2">
                      <span>{g.source}</span>
                      <Badge tone={kind.tone} title={kind.hint}>
                        {kind.label}
                      </Badge>
                    </CardDescription>
                  </div>
                  <div className="shrink-0 text-right">
                    <div className="text-2xl leading-none font-semibold tabular-nums" data-testid="group-count">
                      {g.count.toLocaleString("en")}
                      {capped ? "+" : ""}
                    </div>
                    <div className="mt-1 text-xs text-muted-foreground">{g.count === 1 ? "event" : "events"}</div>
                  </div>
                </CardHeader>
                <CardContent className="flex flex-col gap-3">
                  <p className="font-mono text-xs break-words whitespace-pre-wrap text-destructive">{g.example}</p>
                  <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 text-xs">
                    <dt className="text-muted-foreground">First seen</dt>
                    <dd>
                      <Time value={g.firstSeen} />
                    </dd>
                    <dt className="text-muted-foreground">Last seen</dt>
                    <dd>
                      <Time value={g.lastSeen} />
                    </dd>
                    <dt className="text-muted-foreground">Examples</dt>
                    <dd className="flex min-w-0 flex-col">
                      {g.exampleEventIds.map((id) => (
                        <Link
                          key={id}
                          href={eventHref({ source: g.source, eventId: id })}
                          className="font-mono break-all text-primary hover:underline"
                        >
                          {id}
                        </Link>
                      ))}
                    </dd>
                  </dl>
                  <div className="flex flex-wrap items-start gap-2">
                    <Button asChild variant="outline" size="sm">
                      <Link href={groupEventsHref(g, status)}>View events</Link>
                    </Button>
                    {mayAct && (
                      <RequeueGroup
                        group={{
                          source: g.source,
                          eventType: g.eventType,
                          status,
                          key: { errorKind: g.errorKind, pattern: g.pattern },
                        }}
                      />
                    )}
                  </div>
                </CardContent>
              </Card>
            );
          })}
        </div>
      )}
    </ListSection>
  );
}
