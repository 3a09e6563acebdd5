import type { Metadata } from "next";
import Link from "@/components/link";
import { ZodError } from "zod";
import { PageHeader } from "@/components/page-header";
import { Button } from "@/components/ui/button";
import { can } from "@/lib/roles";
import { getEnv } from "@/lib/env";
import { getFailureDetails, listFailureGroups, FAILURE_GROUP_SCAN_CAP } from "@/lib/console/failure-groups";
import { listEvents, type EventPage } from "@/lib/console/list-events";
import { requirePage } from "../../_lib/session";
import { Announcer } from "./_components/announcer";
import { DeadList, type DeadRowView } from "./_components/dead-list";
import { GroupList, type GroupView } from "./_components/group-list";
import { failuresHref, one, type SearchParams } from "./_components/params";

export const metadata: Metadata = { title: "Failures" };

export default async function FailuresPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const { db, actor } = await requirePage("events.read", "/failures");
  const sp = await searchParams;
  const status = one(sp.groups) === "retrying" ? "failed" : "dead";
  let page: EventPage = { rows: [] };
  let pageError: string | undefined;
  try {
    page = await listEvents(db, actor, {
      filter: { status: ["dead"] },
      cursor: one(sp.cursor),
      back: one(sp.back) === "1",
      limit: 50,
    });
  } catch (err) {
    if (!(err instanceof ZodError)) throw err;
    pageError = err.issues.map((i) => i.message).join("; ");
  }
  const [groups, detailOf] = await Promise.all([
    listFailureGroups(db, actor, { status }),
    getFailureDetails(db, actor, page.rows),
  ]);
  const maxAttempts = getEnv().WORKER_MAX_ATTEMPTS;
  const mayAct = can(actor.role, "events.requeue");
  const groupViews: GroupView[] = groups.groups.map((g) => ({
    ...g,
    firstSeen: g.firstSeen.toISOString(),
    lastSeen: g.lastSeen.toISOString(),
  }));
  const rows: DeadRowView[] = page.rows.map((r) => {
    const d = detailOf(r);
    return {
      source: r.source,
      eventId: r.eventId,
      eventType: r.eventType,
      lastError: r.lastError,
      receivedAt: r.receivedAt.toISOString(),
      attemptsUsed: d?.attemptsUsed ?? r.attempts,
      errorKind: d?.errorKind ?? null,
      lastAttemptAt: d?.lastAttemptAt?.toISOString() ?? null,
    };
  });
  const firstPage = !page.prevCursor;
  const nothingDead = rows.length === 0 && firstPage && !pageError;
  return (
    <>
      <PageHeader
        title="Failures"
        description="Dead events wait for a person: fix the cause and requeue its group, or resolve or ignore events with a note. Times are UTC."
        actions={
          <Button asChild variant="outline" size="sm">
            <Link href="/events?status=dead">All dead events in Events</Link>
          </Button>
        }
      />
      <Announcer>
        <div className="flex min-w-0 flex-col gap-8">
          <GroupList
            groups={groupViews}
            status={status}
            mayAct={mayAct}
            scanned={groups.scanned}
            capped={groups.capped}
            cap={FAILURE_GROUP_SCAN_CAP}
            totalGroups={groups.totalGroups}
            tabHref={(tab) => failuresHref(sp, { groups: tab === "retrying" ? "retrying" : undefined })}
          />
          {pageError && (
            <p
              role="alert"
              className="rounded-lg border border-destructive/40 bg-destructive/5 p-4 text-sm text-destructive"
            >
              {pageError}{" "}
              <Link href="/failures" className="text-primary underline-offset-2 hover:underline">
                Start again
              </Link>
            </p>
          )}
          <DeadList
            rows={rows}
            mayAct={mayAct}
            maxAttempts={maxAttempts}
            nothingDead={nothingDead}
            newerHref={page.prevCursor ? failuresHref(sp, { cursor: page.prevCursor, back: "1" }) : undefined}
            olderHref={page.nextCursor ? failuresHref(sp, { cursor: page.nextCursor }) : undefined}
          />
        </div>
      </Announcer>
    </>
  );
}
