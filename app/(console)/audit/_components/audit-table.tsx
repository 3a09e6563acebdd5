import Link from "next/link";
import { Time } from "@/components/time";
import { Badge, type BadgeTone } from "@/components/ui/badge";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import type { AuditPage } from "@/lib/auth/audit-log";
import { auditHref, OUTCOME_WORDS, type AuditFilterKey } from "./params";
import { describeTarget } from "./targets";

type Row = AuditPage["rows"][number];
type Filters = Partial<Record<AuditFilterKey, string>>;

const OUTCOME_TONES: Record<Row["result"], BadgeTone> = { ok: "success", refused: "warning", error: "danger" };
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})$/;
const MAX_VALUE = 400;

function Outcome({ row }: { row: Row }) {
  return <Badge tone={OUTCOME_TONES[row.result]}>{OUTCOME_WORDS[row.result]}</Badge>;
}

function Target({ target, canManageUsers }: { target: string; canManageUsers: boolean }) {
  const t = describeTarget(target, { canManageUsers });
  const rest = t.href ? (
    <Link href={t.href} className="text-primary underline-offset-2 hover:underline">
      {t.rest}
    </Link>
  ) : (
    t.rest
  );
  return (
    <span className="font-mono text-xs break-all">
      {t.prefix && <span className="text-muted-foreground">{t.prefix}</span>}
      {rest}
    </span>
  );
}

/** Any value a verb stored, as text: strings as they are, times as dates, the rest as compact JSON. */
function DetailValue({ value }: { value: unknown }) {
  if (typeof value === "string" && ISO_INSTANT.test(value)) return <Time value={value} />;
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return <>{text.length > MAX_VALUE ? `${text.slice(0, MAX_VALUE)}…` : text}</>;
}

const titleOf = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value)).slice(0, 2000);

/** `clamp`: in the wide column each value is cut at three lines (the whole value on hover). */
function Details({ detail, clamp = false }: { detail: Record<string, unknown>; clamp?: boolean }) {
  const entries = Object.entries(detail);
  if (entries.length === 0) return null;
  return (
    <dl className="grid grid-cols-[auto_minmax(0,1fr)] gap-x-2 gap-y-0.5 font-mono text-xs">
      {entries.map(([key, value]) => (
        <div key={key} className="contents">
          <dt className="text-muted-foreground">{key}</dt>
          <dd
            className={clamp ? "line-clamp-3 [overflow-wrap:anywhere]" : "[overflow-wrap:anywhere]"}
            title={clamp ? titleOf(value) : undefined}
          >
            <DetailValue value={value} />
          </dd>
        </div>
      ))}
    </dl>
  );
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
 * The log as a table from 390 px up: the action cell carries what the hidden columns show (when, who,
 * target, error, details) on narrower screens, so nothing is out of reach on a phone.
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
          <TableHead className="hidden md:table-cell">When (UTC)</TableHead>
          <TableHead>Action</TableHead>
          <TableHead className="hidden lg:table-cell">Actor</TableHead>
          <TableHead className="hidden md:table-cell">Target</TableHead>
          <TableHead>Outcome</TableHead>
          <TableHead className="hidden xl:table-cell">Details</TableHead>
        </TableRow>
      </TableHeader>
      <TableBody>
        {rows.map((r) => (
          <TableRow key={r.id} data-audit-id={r.id} data-action={r.action}>
            <TableCell className="hidden whitespace-nowrap font-mono text-xs md:table-cell">
              <Time value={r.at} />
            </TableCell>
            <TableCell className="min-w-0">
              <div className="font-mono text-xs font-medium break-all">
                <FilterLink filters={filters} set={{ action: r.action }}>
                  {r.action}
                </FilterLink>
              </div>
              <div className="mt-1 flex flex-col gap-1 text-xs text-muted-foreground md:hidden">
                <Time value={r.at} className="font-mono" />
                <Target target={r.target} canManageUsers={canManageUsers} />
              </div>
              <div className="mt-1 text-xs break-all lg:hidden">
                <span className="text-muted-foreground">by </span>
                <FilterLink filters={filters} set={{ actor: r.actorEmail }}>
                  {r.actorEmail}
                </FilterLink>
              </div>
              {r.error && <p className="mt-1 text-xs break-words text-destructive md:hidden">{r.error}</p>}
              {Object.keys(r.detail).length > 0 && (
                <details className="mt-1 xl:hidden">
                  <summary className="cursor-pointer text-xs text-muted-foreground">Details</summary>
                  <div className="mt-1">
                    <Details detail={r.detail} />
                  </div>
                </details>
              )}
            </TableCell>
            <TableCell className="hidden max-w-64 text-xs break-all lg:table-cell">
              <FilterLink filters={filters} set={{ actor: r.actorEmail }}>
                {r.actorEmail}
              </FilterLink>
            </TableCell>
            <TableCell className="hidden max-w-72 md:table-cell">
              <Target target={r.target} canManageUsers={canManageUsers} />
            </TableCell>
            <TableCell>
              <Outcome row={r} />
              {r.error && (
                <p className="mt-1 hidden max-w-64 text-xs break-words text-destructive md:block">{r.error}</p>
              )}
            </TableCell>
            <TableCell className="hidden max-w-80 xl:table-cell">
              <Details detail={r.detail} clamp />
            </TableCell>
          </TableRow>
        ))}
      </TableBody>
    </Table>
  );
}
