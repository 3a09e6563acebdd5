import { DownloadIcon } from "lucide-react";
import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { Breadcrumb, PageHeader } from "@/components/page-header";
import { TestBadge } from "@/components/test-badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent } from "@/components/ui/card";
import { TabsContent, TabsList, TabsTrigger } from "@/components/ui/tabs";
import { can } from "@/lib/roles";
import { getEnv } from "@/lib/env";
import { NotFoundError } from "@/lib/errors";
import { getEventDetail, type EventDetail } from "@/lib/console/event-detail";
import { eventKeyFromParams } from "@/lib/ledger/params";
import { SUBJECT_LIMITS, subjectExtraction, type SubjectTruncation } from "@/lib/ledger/subjects";
import { dashboardLinks, isPaddleSandbox } from "@/lib/providers/dashboard-links";
import { isProviderKind } from "@/lib/providers/types";
import { sourcesFromEnv } from "@/lib/sources/from-env";
import { publicOrigin } from "../../../../_lib/public-url";
import { requirePage } from "../../../../_lib/session";
import { ApplyTieButton } from "../../_components/apply-tie-button";
import { eventHref } from "../../_components/links";
import { EventActions } from "../../event-actions";
import { AttemptsTab } from "./_components/attempts-tab";
import { ChangesTab } from "./_components/changes-tab";
import { CurlButton } from "./_components/curl-button";
import { errorPath, pathText, type NamedPath } from "./_components/error-path";
import { EventBody } from "./_components/event-body";
import { EventFacts } from "./_components/event-facts";
import { EventSummary } from "./_components/event-summary";
import { EventTabs, TABS_ID } from "./_components/event-tabs";
import { DeliveriesTab } from "./_components/deliveries-tab";
import { ForwardsSection } from "./_components/forwards-section";
import { outcomeOf, providerTime, splitError } from "./_components/format";
import { HeadersTab } from "./_components/headers-tab";
import { PayloadPanel } from "./_components/payload-panel";
import { RawBodyPanel } from "./_components/raw-body-panel";

export const metadata: Metadata = { title: "Event" };

const TABS = ["payload", "raw", "headers", "deliveries", "attempts", "changes"] as const;

function parseRaw(raw: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(raw) as unknown };
  } catch {
    return { ok: false };
  }
}

const PROBLEM_WORDS: Record<NamedPath["problem"], string> = {
  missing: "is missing or empty",
  "not-an-object": "is not an object",
  "not-an-integer": "is not an integer",
  "not-a-date": "is not a date",
  "wrong-object": "names another kind of object",
  "version-unusable": "could not be used as the entity's version",
};

function PathNote({ named }: { named: NamedPath }) {
  const code = (s: string) => <code className="font-mono text-[0.8125rem] break-all">{s}</code>;
  const where = pathText(named.found);
  return (
    <p className="mb-2 rounded-md border border-warning/40 bg-warning/10 px-3 py-2 text-xs break-words" role="note">
      {code(named.named)} {PROBLEM_WORDS[named.problem]}
      {named.missing === undefined ? (
        <>: it is open and highlighted below.</>
      ) : named.found.length === 0 ? (
        <>; the payload does not have it.</>
      ) : (
        <>
          . The payload has no {code(String(named.missing))} there: {code(where)}, the deepest part it has, is
          highlighted.
        </>
      )}
    </p>
  );
}

/** The search index holds what extraction found; when it stopped at a cap, the page says what finds the rest. */
function SubjectsCutNote({ cut }: { cut: SubjectTruncation }) {
  const first =
    cut === "ids"
      ? `the first ${SUBJECT_LIMITS.ids} of more found in this payload`
      : `only those within ${SUBJECT_LIMITS.depth} levels (this payload nests deeper)`;
  return (
    <p className="mb-2 rounded-md border border-warning/40 bg-warning/10 px-3 py-2 text-xs break-words" role="note">
      Subject ids: {first}; Search finds this event by those only. Erasure reads every raw body, so it finds the rest.
    </p>
  );
}

// The legacy sheet styles every <button> (accent background, white text): a trigger says its own.
const trigger = "border-0 bg-transparent px-2 text-xs text-muted-foreground max-sm:justify-center sm:px-2.5 sm:text-sm";
// Counts only where there is room; on a phone the six tabs sit in two rows of three rather than scroll out of sight.
const count = (n: number) => <span className="hidden text-xs text-muted-foreground tabular-nums sm:inline">{n}</span>;

export default async function EventPage({ params }: { params: Promise<{ source: string; eventId: string }> }) {
  // An unknown source, or an id no row can have (NUL, not UTF-8, over 255 characters): not found, before any query.
  const key = eventKeyFromParams(await params);
  const path = key.ok ? eventHref(key.value) : "/events";
  const { db, actor } = await requirePage("events.read", path);
  if (!key.ok) notFound();
  const source = await sourcesFromEnv().find(key.value.source);
  let d: EventDetail;
  try {
    d = await getEventDetail(db, actor, key.value, async () => source);
  } catch (err) {
    if (err instanceof NotFoundError) notFound();
    throw err;
  }
  const e = d.event;
  const env = getEnv();
  const maxAttempts = env.WORKER_MAX_ATTEMPTS;
  const outcome = outcomeOf(e, d.attempts.at(-1));
  const parsed = parseRaw(e.rawBody);
  const payload = parsed.ok ? parsed.value : e.payload;
  const kind = source?.provider ?? (isProviderKind(e.source) ? e.source : undefined);
  const lastFailed = d.attempts.findLast((a) => a.outcome === "failed");
  const named = errorPath(
    {
      // Only while the event still stands failed: a settled one's old error is history, shown in the attempts tab.
      detail: e.lastError ? lastFailed?.errorDetail : undefined,
      intakeNote: e.intakeNote,
      provider: kind,
      options: source?.options,
    },
    payload,
  );
  const dashboard = dashboardLinks({
    provider: kind,
    payload,
    headers: e.headers,
    entity: e.entityType && e.entityId ? { type: e.entityType, id: e.entityId } : null,
    paddleSandbox: isPaddleSandbox(env.PADDLE_API_BASE),
  });
  // Extraction again, on what was stored: the claim keeps the ids it found, not whether it stopped at a cap.
  const cut = subjectExtraction(payload, parsed.ok ? e.rawBody : undefined).truncated;
  const tie = d.transitions.findLast((t) => t.outcome === "tie");
  const tieOpen = tie && !d.transitions.some((t) => t.resolution === "by-hand");
  return (
    <EventBody
      value={{ source: e.source, rawBody: e.rawBody, headers: e.headers, fallback: parsed.ok ? undefined : e.payload }}
    >
      <PageHeader
        crumbs={
          <Breadcrumb href="/events" parent="Events">
            {e.source}
          </Breadcrumb>
        }
        title={<span className="font-mono text-lg break-all">{e.eventId}</span>}
        description={
          <>
            <span className="font-mono break-all">{e.eventType}</span>
            {e.test && <TestBadge className="ml-2 align-middle" />}
          </>
        }
        actions={
          <>
            {can(actor.role, "events.requeue") && (
              <EventActions
                source={e.source}
                eventId={e.eventId}
                status={e.status}
                permanent={splitError(e.lastError).permanent}
              />
            )}
            {tieOpen && can(actor.role, "events.apply-tie") && (
              <ApplyTieButton source={e.source} eventId={e.eventId} keptEventId={tie.priorEventId} />
            )}
            <CurlButton eventId={e.eventId} origin={await publicOrigin()} />
            <Button asChild variant="outline" size="sm" className="text-foreground">
              <a href={`${path}/export`} download>
                <DownloadIcon aria-hidden />
                Download JSON
              </a>
            </Button>
          </>
        }
      />
      <Card className="mb-5">
        <CardContent className="flex flex-col gap-4">
          <EventSummary detail={d} outcome={outcome} maxAttempts={maxAttempts} />
          <div className="border-t pt-4">
            <EventFacts
              detail={d}
              source={source}
              provided={providerTime(kind, payload)}
              maxAttempts={maxAttempts}
              dashboard={dashboard}
            />
          </div>
        </CardContent>
      </Card>
      <EventTabs tabs={TABS}>
        <TabsList
          id={TABS_ID}
          aria-label="Event details"
          className="scroll-mt-16 max-sm:grid max-sm:w-full max-sm:grid-cols-3"
        >
          <TabsTrigger className={trigger} value="payload">
            Payload
          </TabsTrigger>
          <TabsTrigger className={trigger} value="raw">
            Raw body
          </TabsTrigger>
          <TabsTrigger className={trigger} value="headers">
            Headers
          </TabsTrigger>
          <TabsTrigger className={trigger} value="deliveries">
            Deliveries {count(d.deliveryCount)}
          </TabsTrigger>
          <TabsTrigger className={trigger} value="attempts">
            Attempts {count(d.attempts.length)}
          </TabsTrigger>
          <TabsTrigger className={trigger} value="changes">
            Changes {count(d.transitions.length)}
          </TabsTrigger>
        </TabsList>
        {/* Mounted while hidden: the tree keeps what a person opened, and the page's text is all there. */}
        <TabsContent value="payload" forceMount className="data-[state=inactive]:hidden">
          {named && <PathNote named={named} />}
          {cut && <SubjectsCutNote cut={cut} />}
          <PayloadPanel focus={named?.found} />
        </TabsContent>
        <TabsContent value="raw" forceMount className="data-[state=inactive]:hidden">
          <RawBodyPanel />
        </TabsContent>
        <TabsContent value="headers" forceMount className="data-[state=inactive]:hidden">
          <HeadersTab detail={d} options={source?.options} />
        </TabsContent>
        <TabsContent value="deliveries" forceMount className="data-[state=inactive]:hidden">
          <DeliveriesTab detail={d} />
        </TabsContent>
        <TabsContent value="attempts" forceMount className="data-[state=inactive]:hidden">
          <AttemptsTab detail={d} maxAttempts={maxAttempts} />
        </TabsContent>
        <TabsContent value="changes" forceMount className="data-[state=inactive]:hidden">
          <ChangesTab detail={d} outcome={outcome.outcome} />
        </TabsContent>
      </EventTabs>
      <ForwardsSection db={db} actor={actor} source={e.source} eventId={e.eventId} />
    </EventBody>
  );
}
