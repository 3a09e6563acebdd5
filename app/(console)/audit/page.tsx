import { ChevronLeftIcon, ChevronRightIcon, ChevronsLeftIcon } from "lucide-react";
import type { Metadata } from "next";
import Link from "@/components/link";
import { redirect } from "next/navigation";
import { PageHeader } from "@/components/page-header";
import { Button } from "@/components/ui/button";
import { listAudit, listAuditActions, type AuditPage } from "@/lib/audit/log";
import { can } from "@/lib/roles";
import { ValidationError } from "@/lib/errors";
import { requirePage } from "../../_lib/session";
import { AuditFilters } from "./_components/audit-filters";
import { AuditTable } from "./_components/audit-table";
import { auditHref, cleanHref, filtersOf, one, type SearchParams } from "./_components/params";

export const metadata: Metadata = { title: "Audit log" };

export default async function AuditPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const { db, actor } = await requirePage("audit.read", "/audit");
  const sp = await searchParams;
  const clean = cleanHref(sp);
  if (clean) redirect(clean);
  const filters = filtersOf(sp);
  const before = one(sp.before);
  const after = one(sp.after);
  const actions = await listAuditActions(db, actor);
  let page: AuditPage | undefined;
  let problem: ValidationError | undefined;
  try {
    page = await listAudit(db, actor, { ...filters, before, after });
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    problem = err;
  }
  // Paged back up to the newest entries: that page's address is the one without a cursor.
  if (after !== undefined && page && !page.newerCursor) redirect(auditHref(filters));
  const filtered = Object.keys(filters).length > 0;
  const paged = before !== undefined || after !== undefined;
  return (
    <>
      <PageHeader
        title="Audit log"
        description="Every console action, sign-in and sign-out: who, what, to which thing, and how it ended. Newest first; times are UTC. Append-only."
      />
      <AuditFilters key={JSON.stringify(filters)} filters={filters} actions={actions} />
      {problem ? (
        <div role="alert" className="rounded-lg border border-destructive/40 bg-destructive/5 p-4 text-sm">
          <p className="font-medium text-destructive">This view cannot be shown (400): {problem.message}</p>
          <p className="mt-2">
            {problem.field === "cursor" ? (
              <Link className="text-primary underline-offset-2 hover:underline" href={auditHref(filters)}>
                Start again from the newest entries
              </Link>
            ) : (
              <Link className="text-primary underline-offset-2 hover:underline" href="/audit">
                Clear the filters
              </Link>
            )}
          </p>
        </div>
      ) : page && page.rows.length === 0 ? (
        <div className="rounded-lg border bg-card p-6 text-center text-sm text-muted-foreground">
          {filtered || paged ? (
            <>
              No entries match.{" "}
              <Link className="text-primary underline-offset-2 hover:underline" href="/audit">
                Show everything
              </Link>
            </>
          ) : (
            "Nothing recorded yet."
          )}
        </div>
      ) : page ? (
        <>
          <AuditTable rows={page.rows} filters={filters} canManageUsers={can(actor.role, "users.manage")} />
          <nav aria-label="Pages" className="mt-3 flex flex-wrap items-center justify-between gap-2">
            <p className="text-xs text-muted-foreground">
              {page.rows.length} {page.rows.length === 1 ? "entry" : "entries"} on this page
            </p>
            <div className="flex flex-wrap gap-2">
              {page.newerCursor && (
                <>
                  <Button asChild variant="outline" size="sm">
                    <Link href={auditHref(filters)}>
                      <ChevronsLeftIcon aria-hidden /> Newest
                    </Link>
                  </Button>
                  <Button asChild variant="outline" size="sm">
                    <Link href={auditHref(filters, { after: page.newerCursor })} rel="prev">
                      <ChevronLeftIcon aria-hidden /> Newer
                    </Link>
                  </Button>
                </>
              )}
              {page.olderCursor && (
                <Button asChild variant="outline" size="sm">
                  <Link href={auditHref(filters, { before: page.olderCursor })} rel="next">
                    Older <ChevronRightIcon aria-hidden />
                  </Link>
                </Button>
              )}
            </div>
          </nav>
        </>
      ) : null}
    </>
  );
}
