import Link from "@/components/link";
import { Time } from "@/components/time";
import { Badge, type BadgeTone } from "@/components/ui/badge";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import type { AuditPage } from "@/lib/audit/log";
import { auditHref, OUTCOME_WORDS, type AuditFilterKey } from "./params";
import { describeAudit, type Part } from "./sentence";

type Row = AuditPage["rows"][number];
type Filters = Partial<Record<AuditFilterKey, string>>;

const OUTCOME_TONES: Record<Row["result"], BadgeTone> = { ok: "success", refused: "warning", error: "danger" };
/** The raw detail is kept for whoever needs the exact values; a bundle's list of events can be long. */
const RAW_MAX = 4000;

function Sentence({ parts }: { parts: Part[] }) {
  return (
    <p className="break-words" data-sentence="">
      {parts.map((p, i) => {
        if (typeof p === "string") return p;
        if ("at" in p) return <Time key={i} value={p.at} className="whitespace-nowrap" />;
        const cls = p.code ? "font-mono text-[0.8125rem] [overflow-wrap:anywhere]" : "[overflow-wrap:anywhere]";
        return p.href ? (
          <Link key={i} href={p.href} className={`${cls} text-primary underline-offset-2 hover:underline`}>
            {p.text}
          </Link>
        ) : (
          <span key={i} className={cls}>
            {p.text}
          </span>
        );
      })}
    </p>
  );
}

/** The row as the verb wrote it (action, target, detail), as text. */
function rawOf(r: Row): string {
  const detail = Object.keys(r.detail).length ? `\ndetail ${JSON.stringify(r.detail, null, 2)}` : "";
  const text = `target ${r.target}${detail}`;
  return text.length > RAW_MAX ? `${text.slice(0, RAW_MAX)}…` : text;
}

function FilterLink({ filters, set, children }: { filters: Filters; set: Filters; children: string }) {
  return (
    <Link
      href={auditHref({ ...filters, ...set })}
      title={`Only entries with ${Object.keys(set)[0]} ${children}`}
      className="text-foreground underline-offset-2 hover:underline"
    >
      {children}
    </Link>
  );
}

/**
 * Each entry says what was done in words, with links to what it concerns; the row as written (action,
 * target, detail) is under Details. On phones the when and who sit under the sentence.
 */
export function AuditTable({
  rows,
  filters,
  canManageUsers,
}: {
  rows: Row[];
  filters: Filters;
  canManageUsers: boolean;
}) {
  return (
    <Table>
      <TableHeader>
        <TableRow>
          <TableHead from="md">When (UTC)</TableHead>
          <TableHead>What happened</TableHead>
          <TableHead from="lg">Actor</TableHead>
          <TableHead>Outcome</TableHead>
        </TableRow>
      </TableHeader>
      <TableBody>
        {rows.map((r) => (
          <TableRow key={r.id} data-audit-id={r.id} data-action={r.action}>
            <TableCell from="md" className="whitespace-nowrap font-mono text-xs">
              <Time value={r.at} />
            </TableCell>
            <TableCell className="min-w-0">
              <Sentence parts={describeAudit(r, { canManageUsers })} />
              <div className="mt-1 flex flex-wrap gap-x-2 text-xs text-muted-foreground lg:hidden">
                <Time value={r.at} className="font-mono md:hidden" />
                <span className="break-all">
                  by{" "}
                  <FilterLink filters={filters} set={{ actor: r.actorEmail }}>
                    {r.actorEmail}
                  </FilterLink>
                </span>
              </div>
              <details className="mt-1 text-xs">
                <summary className="w-fit cursor-pointer text-muted-foreground">Details</summary>
                <div className="mt-1 flex flex-col gap-1">
                  <span className="text-muted-foreground">
                    action{" "}
                    <span className="font-mono">
                      <FilterLink filters={filters} set={{ action: r.action }}>
                        {r.action}
                      </FilterLink>
                    </span>
                  </span>
                  <pre className="max-h-64 overflow-auto rounded-md bg-muted px-2 py-1.5 font-mono text-xs whitespace-pre-wrap [overflow-wrap:anywhere]">
                    {rawOf(r)}
                  </pre>
                </div>
              </details>
            </TableCell>
            <TableCell from="lg" className="min-w-56 max-w-72 text-xs [overflow-wrap:anywhere]">
              <FilterLink filters={filters} set={{ actor: r.actorEmail }}>
                {r.actorEmail}
              </FilterLink>
            </TableCell>
            <TableCell label="Outcome">
              <Badge tone={OUTCOME_TONES[r.result]}>{OUTCOME_WORDS[r.result]}</Badge>
              {r.error && <p className="mt-1 max-w-64 text-xs break-words text-destructive">{r.error}</p>}
            </TableCell>
          </TableRow>
        ))}
      </TableBody>
    </Table>
  );
}
