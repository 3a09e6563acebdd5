import { LockIcon } from "lucide-react";
import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { Breadcrumb, PageHeader } from "@/components/page-header";
import { Alert } from "@/components/ui/alert";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { can } from "@/lib/roles";
import { getEnv } from "@/lib/env";
import { NotFoundError } from "@/lib/errors";
import { segmentValue } from "@/lib/ledger/params";
import { isProviderKind } from "@/lib/providers/types";
import { sourcesFromEnv } from "@/lib/sources/from-env";
import { secretHint } from "@/lib/sources/secret-hints";
import { getSource } from "@/lib/sources/summary";
import { testEventTypes } from "@/lib/sources/test-samples";
import { requirePage } from "../../../_lib/session";
import { utcInputValue } from "../_components/format";
import { RefusalsTable } from "../_components/refusals-table";
import { RotateSecret } from "../_components/rotate-secret-form";
import { SecretsTable } from "../_components/secrets-table";
import { Fact, SourceFacts } from "../_components/source-facts";
import { StateBadge } from "../_components/state-badge";
import { StateControls } from "../_components/state-controls";
import { TestEvent } from "../_components/test-event";
import { UrlBox } from "../_components/url-box";
import { publicOrigin } from "../../../_lib/public-url";

export const metadata: Metadata = { title: "Source" };

const DAY_MS = 24 * 3600 * 1000;

export default async function SourcePage({ params }: { params: Promise<{ slug: string }> }) {
  const slug = segmentValue((await params).slug);
  const { db, actor } = await requirePage("sources.read", `/sources/${encodeURIComponent(slug)}`);
  let source: Awaited<ReturnType<typeof getSource>>;
  try {
    source = await getSource({ db, actor, sources: sourcesFromEnv(), slug });
  } catch (err) {
    if (err instanceof NotFoundError) notFound();
    throw err;
  }
  const now = new Date();
  const manage = !source.readOnly && can(actor.role, "sources.manage");
  const hasOptions =
    typeof source.options === "object" && source.options !== null && Object.keys(source.options).length > 0;
  const canTest = can(actor.role, "sources.test");
  return (
    <div className="flex flex-col gap-5">
      <PageHeader
        className="mb-0"
        crumbs={
          <Breadcrumb href="/sources" parent="Sources">
            <span className="font-mono">{source.slug}</span>
          </Breadcrumb>
        }
        title={
          <>
            {source.name} <span className="font-mono text-sm font-normal text-muted-foreground">{source.slug}</span>
          </>
        }
        actions={
          <span className="flex items-center gap-2 text-sm text-muted-foreground">
            {source.providerLabel} <StateBadge state={source.state} testId="source-state" />
          </span>
        }
      />
      <UrlBox url={`${await publicOrigin()}${source.path}`} />
      {source.readOnly && (
        <Alert tone="neutral" className="flex items-start gap-2">
          <LockIcon className="mt-0.5 size-4 shrink-0 text-muted-foreground" aria-hidden />
          <span data-testid="origin" className="min-w-0 wrap-anywhere">
            Read-only: {source.originLabel}. Change it there; the console shows it and sends test events.
          </span>
        </Alert>
      )}
      {source.unsealError && (
        <Alert tone="danger" role="alert">
          {source.unsealError}
        </Alert>
      )}

      <div className="grid grid-cols-1 gap-4 lg:grid-cols-2">
        <Card>
          <CardHeader>
            <CardTitle>Details</CardTitle>
          </CardHeader>
          <CardContent className="flex flex-col gap-3">
            <SourceFacts source={source} now={now}>
              <Fact term="Kind">
                {source.providerLabel}{" "}
                <span className="font-mono text-xs text-muted-foreground">({source.provider})</span>
              </Fact>
              <Fact term="Tolerance">
                {source.toleranceSeconds ?? getEnv().WEBHOOK_TOLERANCE_SECONDS} s
                {source.toleranceSeconds === undefined && (
                  <span className="text-xs text-muted-foreground"> (WEBHOOK_TOLERANCE_SECONDS)</span>
                )}
              </Fact>
              <Fact term="Configured">{source.originLabel}</Fact>
            </SourceFacts>
            {hasOptions && (
              <details className="text-sm">
                <summary className="cursor-pointer text-muted-foreground">Options</summary>
                <pre className="mt-2 max-h-80 overflow-auto rounded-md border bg-muted/50 p-2 font-mono text-xs">
                  {JSON.stringify(source.options, null, 2)}
                </pre>
              </details>
            )}
          </CardContent>
        </Card>

        {(manage || canTest) && (
          <Card aria-label="Actions">
            <CardHeader>
              <CardTitle>Actions</CardTitle>
            </CardHeader>
            <CardContent className="flex flex-col gap-5">
              {manage && (
                <div className="flex flex-col gap-2">
                  <p className="text-xs text-muted-foreground">
                    Paused answers 503, so the provider keeps each delivery and retries it; disabled answers 404.
                  </p>
                  <StateControls slug={source.slug} state={source.state} />
                </div>
              )}
              {canTest && (
                <div className="flex flex-col gap-2">
                  <p className="text-xs text-muted-foreground">
                    Signs a sample {source.providerLabel} event of the type you choose with the newest active secret and
                    posts it to this endpoint, as the provider would. The ledger marks it as a test and never applies
                    it.
                  </p>
                  <TestEvent
                    slug={source.slug}
                    types={isProviderKind(source.provider) ? testEventTypes(source.provider) : []}
                  />
                </div>
              )}
            </CardContent>
          </Card>
        )}
      </div>

      <section className="flex flex-col gap-3" aria-labelledby="secrets-heading">
        <div>
          <h2 id="secrets-heading" className="text-base font-semibold">
            Secrets
          </h2>
          <p className="text-xs text-muted-foreground">
            By fingerprint: a secret is shown once, when it is added, and never again.
          </p>
        </div>
        <SecretsTable source={source} manage={manage} now={now} />
        {manage && (
          <RotateSecret
            slug={source.slug}
            defaultRetireAt={utcInputValue(new Date(now.getTime() + DAY_MS))}
            secret={secretHint(source.provider)}
          />
        )}
      </section>

      <section className="flex flex-col gap-3" aria-labelledby="refusals-heading">
        <h2 id="refusals-heading" className="text-base font-semibold">
          Recent refusals
        </h2>
        <RefusalsTable rows={source.recentRefusals} />
      </section>
    </div>
  );
}
