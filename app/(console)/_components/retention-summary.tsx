import { Time } from "@/components/time";
import { Badge } from "@/components/ui/badge";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import type { Db } from "@/db/client";
import type { Actor } from "@/lib/auth/roles";
import { getEnv } from "@/lib/env";
import { getRetentionPreview } from "@/lib/retention/preview";
import { listRetentionRuns } from "@/lib/retention/runs";
import { retentionSettingsFromEnv } from "@/lib/retention/settings";

const n = (v: number) => v.toLocaleString("en");

/** What retention will do next and what its last run did (lib/retention). */
export async function RetentionSummary({ db, actor }: { db: Db; actor: Actor }) {
  const env = getEnv();
  const settings = retentionSettingsFromEnv(env);
  const [preview, [last]] = await Promise.all([
    getRetentionPreview(db, actor, settings),
    listRetentionRuns(db, actor, 1),
  ]);
  const count = (v: number) => `${n(v)}${preview.cap !== undefined && v >= preview.cap ? "+" : ""}`;
  const took = last?.finishedAt
    ? ((last.finishedAt.getTime() - last.startedAt.getTime()) / 1000).toFixed(1)
    : undefined;
  return (
    <Card aria-label="Retention">
      <CardHeader>
        <div className="min-w-0">
          <CardTitle>Retention</CardTitle>
          <CardDescription>
            Settled events kept {settings.retentionDays} days, then a tombstone for {settings.tombstoneDays} days (a
            late retry stays a duplicate). Failed and dead events are never pruned.
          </CardDescription>
        </div>
        <Badge tone={env.RETENTION_INTERVAL_MINUTES > 0 ? "info" : "neutral"}>
          {env.RETENTION_INTERVAL_MINUTES > 0 ? `every ${env.RETENTION_INTERVAL_MINUTES} min` : "not scheduled"}
        </Badge>
      </CardHeader>
      <CardContent className="flex flex-col gap-3 text-sm">
        <p data-testid="retention-preview">
          A run now would prune <strong className="tabular-nums">{count(preview.events)}</strong> settled events
          received before <Time value={preview.cutoffs.events} />, {count(preview.tombstones)} tombstones,{" "}
          {count(preview.replayRuns)} replay runs and {count(preview.auditRows)} audit rows. Oldest settled event:{" "}
          <Time value={preview.oldestSettledAt} />.
          {preview.keptUnsettled > 0 ? ` Kept though older: ${count(preview.keptUnsettled)} failed or dead.` : ""}
        </p>
        <p data-testid="retention-last-run" className="text-muted-foreground">
          {last ? (
            <>
              Last run <Time value={last.startedAt} /> by {last.actor}: {last.status}, {n(last.events)} events pruned (
              {n(last.deliveries)} deliveries, {n(last.attempts)} attempts, {n(last.transitions)} timeline rows),{" "}
              {n(last.tombstones)} tombstones expired{took ? `, in ${took} s` : ", still running"}
              {last.error ? `: ${last.error}` : ""}.
            </>
          ) : (
            <>
              Retention has not run yet.
              {env.RETENTION_INTERVAL_MINUTES > 0 ? "" : " Run npm run prune, or set RETENTION_INTERVAL_MINUTES."}
            </>
          )}
        </p>
      </CardContent>
    </Card>
  );
}
