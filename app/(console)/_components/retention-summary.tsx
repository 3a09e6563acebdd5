import { Time } from "@/components/time";
import { Badge } from "@/components/ui/badge";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import type { Db } from "@/db/client";
import type { Actor } from "@/lib/roles";
import { getEnv } from "@/lib/env";
import { getRetentionPreview } from "@/lib/retention/preview";
import { listRetentionRuns } from "@/lib/retention/runs";
import { retentionSettingsFromEnv } from "@/lib/retention/settings";
import { plural } from "@/lib/format/words";

const n = (v: number) => v.toLocaleString("en");

/** What retention will do next and what its last run did (lib/retention). */
export async function RetentionSummary({ db, actor }: { db: Db; actor: Actor }) {
  const env = getEnv();
  const settings = retentionSettingsFromEnv(env);
  const [preview, [last]] = await Promise.all([
    getRetentionPreview(db, actor, settings),
    listRetentionRuns(db, actor, 1),
  ]);
  // At the preview's cap the count is a floor: "1,000+ events".
  const count = (v: number, word: string, many?: string) =>
    preview.cap !== undefined && v >= preview.cap ? `${n(v)}+ ${many ?? `${word}s`}` : plural(v, word, many);
  const took = last?.finishedAt
    ? ((last.finishedAt.getTime() - last.startedAt.getTime()) / 1000).toFixed(1)
    : undefined;
  return (
    <Card aria-label="Retention">
      <CardHeader>
        <div className="min-w-0">
          <CardTitle>Retention</CardTitle>
          <CardDescription>
            Settled events kept {plural(settings.retentionDays, "day")}, then a tombstone for{" "}
            {plural(settings.tombstoneDays, "day")} (a late retry stays a duplicate). Failed and dead events are never
            pruned.
          </CardDescription>
        </div>
        <Badge tone={env.RETENTION_INTERVAL_MINUTES > 0 ? "info" : "neutral"}>
          {env.RETENTION_INTERVAL_MINUTES > 0 ? `every ${env.RETENTION_INTERVAL_MINUTES} min` : "not scheduled"}
        </Badge>
      </CardHeader>
      <CardContent className="flex flex-col gap-3 text-sm">
        <p data-testid="retention-preview">
          A run now would prune <strong className="tabular-nums">{count(preview.events, "settled event")}</strong>{" "}
          received before <Time value={preview.cutoffs.events} />, {count(preview.tombstones, "tombstone")},{" "}
          {count(preview.replayRuns, "replay run")} and {count(preview.auditRows, "audit row")}. Oldest settled event:{" "}
          <Time value={preview.oldestSettledAt} />.
          {preview.keptUnsettled > 0
            ? ` Kept though older: ${count(preview.keptUnsettled, "failed or dead event")}.`
            : ""}
        </p>
        <p data-testid="retention-last-run" className="text-muted-foreground">
          {last ? (
            <>
              Last run <Time value={last.startedAt} /> by {last.actor}: {last.status}, {plural(last.events, "event")}{" "}
              pruned ({plural(last.deliveries, "delivery", "deliveries")}, {plural(last.attempts, "attempt")},{" "}
              {plural(last.transitions, "timeline row")}), {plural(last.tombstones, "tombstone")} expired
              {took ? `, in ${took} s` : ", still running"}
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
