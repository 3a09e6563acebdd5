import type { ReplayRun } from "@/db/schema/replay";
import { RunActions } from "./run-actions";
import { utc } from "@/components/utc";
import { SOURCE_LABELS, STATUS_BADGE } from "./format";

// The e2e specs read these cells by data-count.
const COUNTS = ["fetched", "new", "duplicates", "failed"] as const satisfies readonly (keyof ReplayRun)[];

/** Every run, newest first: who, what window, how far it got and how it ended. */
export function RunsTable({ runs, canAct }: { runs: ReplayRun[]; canAct: boolean }) {
  if (runs.length === 0) return <p className="muted">No replays yet.</p>;
  return (
    <div className="table-wrap">
      <table>
        <thead>
          <tr>
            <th>#</th>
            <th>Started (UTC)</th>
            <th>Who</th>
            <th>Source</th>
            <th>Window (UTC)</th>
            <th>Kind</th>
            <th>Status</th>
            <th className="num">Fetched</th>
            <th className="num">New</th>
            <th className="num">Duplicates</th>
            <th className="num">Failed</th>
            <th>Error</th>
            {canAct && <th />}
          </tr>
        </thead>
        <tbody>
          {runs.map((r) => (
            <tr key={r.id} data-run-id={r.id} data-status={r.status} data-kind={r.dryRun ? "preview" : "replay"}>
              <td className="mono">{r.id}</td>
              <td className="mono nowrap">{utc(r.startedAt)}</td>
              <td className="clip" title={r.actor}>
                {r.actor}
              </td>
              <td>{SOURCE_LABELS[r.source]}</td>
              <td className="mono nowrap">
                {utc(r.since)} → {utc(r.until)}
                {r.types.length > 0 && <div className="muted">{r.types.join(", ")}</div>}
              </td>
              <td>{r.dryRun ? "preview" : "replay"}</td>
              <td>
                <span className={`badge ${STATUS_BADGE[r.status]}`}>{r.status}</span>
              </td>
              {COUNTS.map((k) => (
                <td key={k} className="num" data-count={k}>
                  {r[k]}
                </td>
              ))}
              <td>{r.lastError && <div className="error">{r.lastError}</div>}</td>
              {canAct && (
                <td>
                  <RunActions id={r.id} status={r.status} />
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
