import type { Metadata } from "next";
import Link from "@/components/link";
import { DownloadIcon, PrinterIcon, SearchIcon } from "lucide-react";
import { Breadcrumb, PageHeader } from "@/components/page-header";
import { Button } from "@/components/ui/button";
import { plural } from "@/lib/format/words";
import { entityCountWords } from "@/lib/console/entity-words";
import { getSubjectView, SUBJECT_ENTITY_LIMIT } from "@/lib/console/subject";
import { sourcesFromEnv } from "@/lib/sources/from-env";
import { requirePage } from "../../../_lib/session";
import { EntityCard } from "../_components/entity-card";
import { EventItem } from "../_components/event-item";
import { scanWords, subjectFromParam, subjectHref } from "../_components/format";
import { InvalidSubject } from "../_components/invalid-subject";

export const metadata: Metadata = { title: "Customer" };

export default async function SubjectPage({ params }: { params: Promise<{ id: string }> }) {
  const raw = (await params).id;
  const parsed = subjectFromParam(raw);
  const path = parsed.ok ? subjectHref(parsed.subject) : "/events";
  const { db, actor } = await requirePage("events.read", path);
  if (!parsed.ok) return <InvalidSubject error={parsed.error} />;
  const v = await getSubjectView(db, actor, { subject: parsed.subject }, (slug) => sourcesFromEnv().find(slug));
  const sources = [...new Set(v.events.map((e) => e.source))].sort();
  const duplicates = v.events.reduce((n, e) => n + e.duplicates, 0);
  const decisions = v.events.flatMap((e) => e.transitions).filter((t) => t.outcome !== "applied").length;
  const search = `/events?${new URLSearchParams({ q: v.subject }).toString()}`;
  const scanned = scanWords(v);
  return (
    <>
      <PageHeader
        crumbs={
          <Breadcrumb href="/events" parent="Events">
            customer
          </Breadcrumb>
        }
        title={<span className="font-mono break-all">{v.subject}</span>}
        description={
          v.events.length === 0
            ? (scanned ?? "No event in the ledger mentions this id or email.")
            : [
                `${plural(v.events.length, "event")} from ${sources.join(", ")}`,
                entityCountWords(v.entities),
                plural(duplicates, "duplicate delivery", "duplicate deliveries"),
                plural(decisions, "stale or tie decision"),
              ].join(" · ")
        }
        actions={
          <>
            {v.events.length > 0 && (
              <>
                <Button asChild size="sm">
                  <a href={`${path}/bundle`} download>
                    <DownloadIcon aria-hidden />
                    Download dispute bundle (JSON)
                  </a>
                </Button>
                <Button asChild variant="outline" size="sm">
                  <Link href={`${path}/print`}>
                    <PrinterIcon aria-hidden />
                    Printable bundle
                  </Link>
                </Button>
              </>
            )}
            <Button asChild variant="ghost" size="sm">
              <Link href={search}>
                <SearchIcon aria-hidden />
                Search the ledger for it
              </Link>
            </Button>
          </>
        }
      />
      {scanned && v.events.length > 0 && (
        <p role="status" className="mb-4 rounded-lg border border-warning/40 bg-warning/10 px-4 py-3 text-sm">
          {scanned}
        </p>
      )}
      {!v.scan && v.found > v.events.length && (
        <p role="status" className="mb-4 rounded-lg border border-warning/40 bg-warning/10 px-4 py-3 text-sm">
          {v.capped
            ? `More than ${(v.found - 1).toLocaleString("en")} events mention this value: an id many events share ` +
              `(a price, a product), not one customer. Shown: the newest ${v.events.length} of those found first.`
            : `${v.found.toLocaleString("en")} events mention it; shown: the newest ${v.events.length}. Narrow the search on the events page for the rest.`}
        </p>
      )}
      {v.events.length > 0 && (
        <div className="grid grid-cols-1 items-start gap-6 lg:grid-cols-[minmax(0,3fr)_minmax(0,2fr)]">
          <section aria-labelledby="subject-timeline" className="min-w-0">
            <h2 id="subject-timeline" className="mb-3 text-sm font-semibold">
              Timeline, newest first
            </h2>
            <ol aria-label="Events" className="flex flex-col">
              {v.events.map((e) => (
                <EventItem key={`${e.source}/${e.eventId}`} e={e} />
              ))}
            </ol>
          </section>
          <section aria-labelledby="subject-entities" className="flex min-w-0 flex-col gap-3">
            <h2 id="subject-entities" className="text-sm font-semibold">
              Entities and their state now
            </h2>
            {v.entities.length === 0 && <p className="text-sm text-muted-foreground">These events moved no entity.</p>}
            {v.entities.map((x) => (
              <EntityCard key={`${x.source}/${x.entityType}/${x.entityId}`} x={x} />
            ))}
            {v.entitiesCut && (
              <p className="text-xs text-muted-foreground">Showing the first {SUBJECT_ENTITY_LIMIT} entities.</p>
            )}
          </section>
        </div>
      )}
    </>
  );
}
