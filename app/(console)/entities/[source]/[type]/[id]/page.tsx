import type { Metadata } from "next";
import Link from "@/components/link";
import { notFound } from "next/navigation";
import { Breadcrumb, PageHeader } from "@/components/page-header";
import { Button } from "@/components/ui/button";
import { can } from "@/lib/roles";
import { withArticle } from "@/lib/format/words";
import { getEntityTimeline } from "@/lib/console/entity-timeline";
import { getEventEnvelope } from "@/lib/console/event-envelope";
import { getEnv } from "@/lib/env";
import { dashboardLinks, isPaddleSandbox } from "@/lib/providers/dashboard-links";
import { isProviderKind } from "@/lib/providers/types";
import { sourcesFromEnv } from "@/lib/sources/from-env";
import { DashboardLinks } from "@/components/dashboard-links";
import { isSourceSlug } from "@/lib/ledger/params";
import { requirePage } from "../../../../../_lib/session";
import { segment } from "../../../../events/_components/links";
import { CurrentState, CurrentVersion } from "../../../_components/entity-facts";
import { Timeline } from "../../../_components/timeline";

export const metadata: Metadata = { title: "Entity" };

export default async function EntityPage({
  params,
}: {
  params: Promise<{ source: string; type: string; id: string }>;
}) {
  const p = await params;
  const [type, id] = [segment(p.type), segment(p.id)];
  const path = `/entities/${encodeURIComponent(p.source)}/${encodeURIComponent(type)}/${encodeURIComponent(id)}`;
  const { db, actor } = await requirePage("events.read", path);
  if (!isSourceSlug(p.source)) notFound();
  const t = await getEntityTimeline(db, actor, { source: p.source, entityType: type, entityId: id });
  if (t.entries.length === 0 && !t.current) notFound();
  const search = `/events?${new URLSearchParams({ q: id }).toString()}`;
  // The newest event the ledger still holds says what the links need (Stripe's mode, Shopify's shop).
  const newest = t.entries.find((x) => x.inLedger);
  const envelope = newest && (await getEventEnvelope(db, actor, { source: t.source, eventId: newest.eventId }));
  const source = await sourcesFromEnv().find(t.source);
  const dashboard = dashboardLinks({
    provider: source?.provider ?? (isProviderKind(t.source) ? t.source : undefined),
    payload: envelope?.payload,
    headers: envelope?.headers ?? {},
    entity: { type: t.entityType, id: t.entityId },
    paddleSandbox: isPaddleSandbox(getEnv().PADDLE_API_BASE),
  });
  return (
    <>
      <PageHeader
        crumbs={
          <Breadcrumb href="/events" parent="Events">
            {t.source} / {t.entityType}
          </Breadcrumb>
        }
        title={<span className="font-mono break-all">{t.entityId}</span>}
        description={
          <>
            {withArticle(t.entityType, { capital: true })} from {t.source}: every event that tried to move it, and what
            stands now.
            {dashboard.length > 0 && <DashboardLinks links={dashboard} className="mt-1.5" />}
          </>
        }
        actions={
          <>
            <Button asChild variant="outline" size="sm">
              <Link href={search}>Every event that mentions it →</Link>
            </Button>
            <Button asChild variant="outline" size="sm">
              <Link href={`/subjects/${encodeURIComponent(id)}`}>Everything about {id} →</Link>
            </Button>
          </>
        }
      />
      <div className="grid grid-cols-1 gap-4 lg:grid-cols-[minmax(0,2fr)_minmax(0,3fr)]">
        <CurrentVersion t={t} />
        <CurrentState t={t} />
      </div>
      <h2 className="mt-8 mb-3 text-sm font-semibold">Timeline, newest first</h2>
      <Timeline t={t} mayDecide={can(actor.role, "events.apply-tie")} />
    </>
  );
}
