import type { Metadata } from "next";
import Link from "next/link";
import { utc } from "@/components/utc";
import { listAudit } from "@/lib/audit";
import { requirePage } from "../../_lib/session";

export const metadata: Metadata = { title: "Audit log" };

export default async function AuditPage({ searchParams }: { searchParams: Promise<{ before?: string }> }) {
  const { db, actor } = await requirePage("audit.read", "/audit");
  const before = Number((await searchParams).before) || undefined; // listAudit ignores what is no row id
  const { rows, nextCursor } = await listAudit(db, actor, { before });
  return (
    <>
      <h1>Audit log</h1>
      <p className="muted">Every console action, newest first. Append-only.</p>
      <table>
        <thead>
          <tr>
            <th>When (UTC)</th>
            <th>Who</th>
            <th>Action</th>
            <th>Target</th>
            <th>Result</th>
            <th>Detail</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.id}>
              <td className="mono nowrap">{utc(r.at)}</td>
              <td>{r.actorEmail}</td>
              <td className="mono">{r.action}</td>
              <td className="mono">{r.target}</td>
              <td>
                <span className={`badge ${r.result}`}>{r.result}</span>
                {r.error && <div className="error">{r.error}</div>}
              </td>
              <td className="mono">{Object.keys(r.detail).length ? JSON.stringify(r.detail) : ""}</td>
            </tr>
          ))}
          {rows.length === 0 && (
            <tr>
              <td colSpan={6} className="muted">
                Nothing recorded yet.
              </td>
            </tr>
          )}
        </tbody>
      </table>
      {nextCursor && (
        <p>
          <Link href={`/audit?before=${nextCursor}`}>Older →</Link>
        </p>
      )}
    </>
  );
}
