import Link from "@/components/link";
import { Time } from "@/components/time";
import { Badge } from "@/components/ui/badge";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import type { Db } from "@/db/client";
import { listAlertIncidents } from "@/lib/alerts/queries";
import { can, type Actor } from "@/lib/roles";

/** The alerts firing now, newest first, with a link to the alerts page. */
export async function AlertsSummary({ db, actor }: { db: Db; actor: Actor }) {
  if (!can(actor.role, "alerts.read")) return null;
  const recent = await listAlertIncidents({ db, actor, limit: 20 });
  const firing = recent.filter((i) => i.state === "firing");
  return (
    <Card aria-label="Alerts">
      <CardHeader>
        <div className="min-w-0">
          <CardTitle>Alerts</CardTitle>
          <CardDescription>
            {firing.length === 0
              ? "Nothing firing."
              : `${firing.length.toLocaleString("en")} firing among the ${recent.length} newest incidents.`}
          </CardDescription>
        </div>
        <Link href="/alerts" className="text-xs text-primary hover:underline">
          Alerts →
        </Link>
      </CardHeader>
      <CardContent className="text-sm">
        {firing.length === 0 ? (
          <p className="text-muted-foreground">
            {recent[0]
              ? `Last incident ${recent[0].resolvedAt ? "resolved" : "opened"}: `
              : "No incident has been opened yet."}
            {recent[0] && <Time value={recent[0].resolvedAt ?? recent[0].openedAt} />}
          </p>
        ) : (
          <ul className="flex flex-col gap-2">
            {firing.slice(0, 5).map((i) => (
              <li key={i.id} className="flex min-w-0 items-start gap-2">
                <Badge tone="danger">firing</Badge>
                <div className="min-w-0">
                  <p className="break-words">{i.summary}</p>
                  <p className="text-xs text-muted-foreground">
                    <span className="font-mono break-all">{i.subject}</span> · since <Time value={i.openedAt} />
                  </p>
                </div>
              </li>
            ))}
          </ul>
        )}
      </CardContent>
    </Card>
  );
}
