import { utc } from "@/components/utc";
import type { SourceSummary } from "@/lib/sources/summary";
import { ago } from "./format";
import { ExpireSecretButton } from "./expire-secret-button";

/** Fingerprints only: a secret's plaintext is never rendered after the answer that issued it. */
export function SecretsTable({ source, manage, now }: { source: SourceSummary; manage: boolean; now: Date }) {
  const active = source.secrets.filter((s) => s.active).length;
  return (
    <div className="table-wrap">
      <table className="data secrets">
        <thead>
          <tr>
            <th>Fingerprint</th>
            <th>Added</th>
            <th>Verifies until</th>
            <th>Status</th>
            {manage && <th aria-label="Actions" />}
          </tr>
        </thead>
        <tbody>
          {source.secrets.length === 0 && (
            <tr>
              <td colSpan={manage ? 5 : 4} className="empty muted">
                No secrets: every delivery is refused.
              </td>
            </tr>
          )}
          {source.secrets.map((s, i) => (
            <tr key={s.id ?? `${s.fingerprint}-${i}`} data-fingerprint={s.fingerprint} data-active={s.active}>
              <td className="mono">{s.fingerprint}</td>
              <td className="mono nowrap">{s.createdAt ? utc(s.createdAt) : <span className="muted">—</span>}</td>
              <td>
                {s.expiresAt ? (
                  <>
                    <span className="mono nowrap">{utc(s.expiresAt)} UTC</span>{" "}
                    <span className="muted">({ago(s.expiresAt, now)})</span>
                  </>
                ) : (
                  <span className="muted">until rotated out</span>
                )}
              </td>
              <td>
                <span className={`badge ${s.active ? "ok" : "dead"}`}>{s.active ? "active" : "expired"}</span>
              </td>
              {manage && (
                <td>
                  {s.active && s.id && (
                    <ExpireSecretButton
                      slug={source.slug}
                      secretId={s.id}
                      fingerprint={s.fingerprint}
                      last={active === 1}
                    />
                  )}
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
