import type { Metadata } from "next";
import { can } from "@/lib/auth/roles";
import { replaySourceStatus } from "@/lib/replay/embedded";
import { getReplayRun, listReplayRuns } from "@/lib/replay/runs";
import { requirePage } from "../../_lib/session";
import { AutoRefresh } from "./_components/auto-refresh";
import { PreviewPanel } from "./_components/preview-panel";
import { ReplayForm } from "./_components/replay-form";
import { RunsTable } from "./_components/runs-table";

export const metadata: Metadata = { title: "Replays" };

export default async function ReplaysPage({ searchParams }: { searchParams: Promise<{ preview?: string }> }) {
  const { db, actor } = await requirePage("replay.read", "/replays");
  const canRun = can(actor.role, "replay.start");
  const runs = await listReplayRuns({ db, actor });
  const { preview: previewId } = await searchParams;
  const preview =
    canRun && previewId && /^\d{1,15}$/.test(previewId) ? await getReplayRun(db, Number(previewId)) : undefined;
  const live = runs.some((r) => r.status === "running") || preview?.status === "running";
  return (
    <>
      <h1>Replays</h1>
      <p className="muted">
        Pull a window of events back from a provider&apos;s API when deliveries were missed. Every event goes through
        the same claim as a delivery, so the ledger keeps what it already has and processes only the new ones (their
        attempts show trigger <code>replay</code>).
      </p>
      {canRun && <ReplayForm sources={replaySourceStatus()} />}
      {preview?.dryRun && <PreviewPanel run={preview} />}
      <h2>Runs</h2>
      <RunsTable runs={runs} canAct={canRun} />
      {live && <AutoRefresh intervalMs={1000} />}
    </>
  );
}
