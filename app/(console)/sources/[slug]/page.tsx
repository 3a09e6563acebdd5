import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { can } from "@/lib/auth/roles";
import { getEnv } from "@/lib/env";
import { NotFoundError } from "@/lib/errors";
import { segmentValue } from "@/lib/ledger/params";
import { sourcesFromEnv } from "@/lib/sources/from-env";
import { getSource } from "@/lib/sources/summary";
import { requirePage } from "../../../_lib/session";
import { utcInputValue } from "../_components/format";
import { RefusalsTable } from "../_components/refusals-table";
import { RotateSecret } from "../_components/rotate-secret-form";
import { SecretsTable } from "../_components/secrets-table";
import { SourceFacts } from "../_components/source-facts";
import { StateBadge } from "../_components/state-badge";
import { StateControls } from "../_components/state-controls";
import { TestEvent } from "../_components/test-event";
import { UrlBox } from "../_components/url-box";
import { publicOrigin } from "../_lib/public-url";

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
  return (
    <>
      <p className="crumbs">
        <Link href="/sources">Sources</Link> / {source.slug}
      </p>
      <div className="page-head">
        <h1 className="break">
          {source.name} <span className="mono muted source-slug">{source.slug}</span>
        </h1>
        <span className="source-kind">
          {source.providerLabel} <StateBadge state={source.state} />
        </span>
      </div>
      <UrlBox url={`${await publicOrigin()}${source.path}`} />
      {source.readOnly && (
        <p className="notice source-origin" data-testid="origin">
          Read-only: {source.originLabel}. Change it there; the console shows it and sends test events.
        </p>
      )}
      {source.unsealError && (
        <p className="notice error" role="alert">
          {source.unsealError}
        </p>
      )}
      <div className="panel">
        <SourceFacts source={source} now={now}>
          <dt>Kind</dt>
          <dd>
            {source.providerLabel} <span className="muted mono">({source.provider})</span>
          </dd>
          <dt>Tolerance</dt>
          <dd>
            {source.toleranceSeconds ?? getEnv().WEBHOOK_TOLERANCE_SECONDS} s
            {source.toleranceSeconds === undefined && <span className="muted"> (WEBHOOK_TOLERANCE_SECONDS)</span>}
          </dd>
          <dt>Configured</dt>
          <dd>{source.originLabel}</dd>
        </SourceFacts>
        {hasOptions && (
          <details>
            <summary>Options</summary>
            <pre className="raw">{JSON.stringify(source.options, null, 2)}</pre>
          </details>
        )}
      </div>

      {(manage || can(actor.role, "sources.test")) && (
        <section aria-label="Actions">
          <h2>Actions</h2>
          <div className="panel source-actions">
            {manage && (
              <div>
                <p className="flush muted">
                  Paused answers 503, so the provider keeps each delivery and retries it; disabled answers 404.
                </p>
                <StateControls slug={source.slug} state={source.state} />
              </div>
            )}
            {can(actor.role, "sources.test") && (
              <div>
                <p className="flush muted">
                  Signs a sample {source.providerLabel} event with the newest active secret and posts it to this
                  endpoint, as the provider would.
                </p>
                <TestEvent slug={source.slug} />
              </div>
            )}
          </div>
        </section>
      )}

      <h2>Secrets</h2>
      <SecretsTable source={source} manage={manage} now={now} />
      {manage && <RotateSecret slug={source.slug} defaultRetireAt={utcInputValue(new Date(now.getTime() + DAY_MS))} />}

      <h2>Recent refusals</h2>
      <RefusalsTable rows={source.recentRefusals} />
    </>
  );
}
