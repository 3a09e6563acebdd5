import { Time } from "@/components/time";
import { Badge } from "@/components/ui/badge";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import type { SourceSummary } from "@/lib/sources/summary";
import { ago } from "./format";
import { ExpireSecretButton } from "./expire-secret-button";

/** Fingerprints only: a secret's plaintext is never rendered after the answer that issued it. */
export function SecretsTable({ source, manage, now }: { source: SourceSummary; manage: boolean; now: Date }) {
  const active = source.secrets.filter((s) => s.active).length;
  return (
    <Table aria-label="Secrets">
      <TableHeader>
        <TableRow>
          <TableHead>Fingerprint</TableHead>
          <TableHead from="sm">Added (UTC)</TableHead>
          <TableHead from="sm">Verifies until</TableHead>
          <TableHead>Status</TableHead>
          {manage && (
            <TableHead className="text-right">
              <span className="sr-only">Actions</span>
            </TableHead>
          )}
        </TableRow>
      </TableHeader>
      <TableBody>
        {source.secrets.length === 0 && (
          <TableRow>
            <TableCell colSpan={manage ? 5 : 4} className="py-6 text-center text-muted-foreground">
              No secrets: every delivery is refused.
            </TableCell>
          </TableRow>
        )}
        {source.secrets.map((s, i) => (
          <TableRow key={s.id ?? `${s.fingerprint}-${i}`} data-fingerprint={s.fingerprint} data-active={s.active}>
            <TableCell className="font-mono text-xs">
              {s.fingerprint}
              <div className="mt-0.5 flex flex-col font-sans text-muted-foreground sm:hidden">
                <span>added {s.createdAt ? <Time value={s.createdAt} /> : "—"}</span>
                <span>
                  {s.expiresAt ? (
                    <>
                      verifies until <Time value={s.expiresAt} /> ({ago(s.expiresAt, now)})
                    </>
                  ) : (
                    "verifies until rotated out"
                  )}
                </span>
              </div>
            </TableCell>
            <TableCell from="sm" label="Added (UTC)" className="text-xs whitespace-nowrap">
              {s.createdAt ? <Time value={s.createdAt} /> : <span className="text-muted-foreground">—</span>}
            </TableCell>
            <TableCell from="sm" label="Verifies until" className="text-xs">
              {s.expiresAt ? (
                <>
                  <span className="whitespace-nowrap">
                    <Time value={s.expiresAt} /> UTC
                  </span>{" "}
                  <span className="whitespace-nowrap text-muted-foreground">({ago(s.expiresAt, now)})</span>
                </>
              ) : (
                <span className="text-muted-foreground">until rotated out</span>
              )}
            </TableCell>
            <TableCell label="Status">
              <Badge tone={s.active ? "success" : "neutral"}>{s.active ? "active" : "expired"}</Badge>
            </TableCell>
            {manage && (
              <TableCell className="text-right">
                {s.active && s.id && (
                  <ExpireSecretButton
                    slug={source.slug}
                    secretId={s.id}
                    fingerprint={s.fingerprint}
                    last={active === 1}
                  />
                )}
              </TableCell>
            )}
          </TableRow>
        ))}
      </TableBody>
    </Table>
  );
}
