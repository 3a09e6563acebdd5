import { utc } from "@/components/utc";
import type { RefusalRow } from "@/lib/sources/refusals";
import { REFUSAL_WORDS } from "./format";

/** Refused deliveries as metadata: never a body, never a header's value (only which signature header came). */
export function RefusalsTable({ rows }: { rows: RefusalRow[] }) {
  if (rows.length === 0) return <p className="panel muted">No refused deliveries recorded.</p>;
  return (
    <div className="table-wrap">
      <table className="data refusals">
        <thead>
          <tr>
            <th>Time (UTC)</th>
            <th>Reason</th>
            <th>Detail</th>
            <th className="num">Status</th>
            <th className="num">Size</th>
            <th>Signature header</th>
            <th>From</th>
            <th className="num">Count</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.id} data-reason={r.reason}>
              <td className="mono nowrap">{utc(r.at)}</td>
              <td className="nowrap">
                <span className="badge refused">{REFUSAL_WORDS[r.reason]}</span>
              </td>
              <td className="error-cell">{r.detail}</td>
              <td className="num">{r.status}</td>
              <td className="num">{r.size === null ? "—" : `${r.size.toLocaleString("en")} B`}</td>
              <td className="mono">{r.signatureHeader ?? <span className="muted">none</span>}</td>
              <td className="mono">{r.remoteAddr ?? <span className="muted">—</span>}</td>
              <td className="num" data-count="count">
                {r.count.toLocaleString("en")}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
