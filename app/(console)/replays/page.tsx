import type { Metadata } from "next";
import { PageHeader } from "@/components/page-header";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { can } from "@/lib/roles";
import { getReplaySetup } from "@/lib/replay/embedded";
import { formatUtcDateTime, REPLAY_MAX_WINDOW, type ReplaySourceSetup } from "@/lib/replay/form";
import { getReplayRun, listReplayRuns } from "@/lib/replay/runs";
import { requirePage } from "../../_lib/session";
import { AutoRefresh } from "./_components/auto-refresh";
import { PreviewPanel } from "./_components/preview-panel";
import { ReplayForm } from "./_components/replay-form";
import { RunsTable } from "./_components/runs-table";

export const metadata: Metadata = { title: "Replays" };

function SetupList({ sources }: { sources: ReplaySourceSetup[] }) {
  return (
    <ul className="flex flex-col gap-1.5 text-sm" data-testid="replay-setup">
      {sources.map((s) => (
        <li key={s.source} data-source={s.source} className="break-words">
          <span className="font-medium">{s.label}:</span> <span className="text-muted-foreground">{s.howTo}</span>
        </li>
      ))}
    </ul>
  );
}

export default async function ReplaysPage({ searchParams }: { searchParams: Promise<{ preview?: string }> }) {
  const { db, actor } = await requirePage("replay.read", "/replays");
  const canRun = can(actor.role, "replay.start");
  const runs = await listReplayRuns({ db, actor });
  const { preview: previewId } = await searchParams;
  const preview =
    canRun && previewId && /^\d{1,15}$/.test(previewId) ? await getReplayRun(db, Number(previewId)) : undefined;
  const live = runs.some((r) => r.status === "running") || preview?.status === "running";
  const setup = getReplaySetup();
  const ready = setup.filter((s) => s.ready);
  const notReady = setup.filter((s) => !s.ready);
  return (
    <div className="flex flex-col gap-6">
      <PageHeader
        className="mb-0"
        title="Replays"
        description={
          "Pull a window of events back from a provider's API when deliveries were missed. Each event goes through " +
          "the same claim as a delivery: the ledger keeps what it has and processes only the new ones " +
          "(their attempts say replay)."
        }
      />
      {canRun && ready.length === 0 && (
        <Card aria-label="Replay setup">
          <CardHeader>
            <div>
              <CardTitle>No provider API is configured here</CardTitle>
              <CardDescription>
                A replay lists events from the provider&apos;s API, so it needs an API key in this deploy&apos;s
                environment. Set one, restart, and the form appears.
              </CardDescription>
            </div>
          </CardHeader>
          <CardContent>
            <SetupList sources={notReady} />
          </CardContent>
        </Card>
      )}
      {canRun && ready.length > 0 && (
        <Card>
          <CardHeader>
            <div>
              <CardTitle>Replay a window</CardTitle>
              <CardDescription>
                Times are UTC, 24 h (YYYY-MM-DD HH:MM). Preview counts what would come back; nothing is written until
                you start it.
              </CardDescription>
            </div>
          </CardHeader>
          <CardContent className="flex flex-col gap-4">
            <ReplayForm
              sources={ready.map((s) => ({
                source: s.source,
                label: s.label,
                maxDays: REPLAY_MAX_WINDOW[s.source].days,
              }))}
              initial={
                preview && {
                  source: preview.source,
                  since: formatUtcDateTime(preview.since),
                  until: formatUtcDateTime(preview.until),
                  types: preview.types.join(", "),
                }
              }
            />
            {notReady.length > 0 && (
              <details className="border-t pt-3 text-sm">
                <summary className="cursor-pointer text-muted-foreground">
                  Not configured here: {notReady.map((s) => s.label).join(", ")}
                </summary>
                <div className="mt-2">
                  <SetupList sources={notReady} />
                </div>
              </details>
            )}
          </CardContent>
        </Card>
      )}
      {preview?.dryRun && <PreviewPanel run={preview} />}
      <section className="flex flex-col gap-3" aria-labelledby="runs-heading">
        <h2 id="runs-heading" className="text-base font-semibold">
          Runs
        </h2>
        <RunsTable runs={runs} canAct={canRun} />
      </section>
      {live && <AutoRefresh intervalMs={1000} />}
    </div>
  );
}
