import type { Metadata } from "next";
import Link from "next/link";
import { can } from "@/lib/auth/roles";
import { sourcesFromEnv } from "@/lib/sources/from-env";
import { listSources } from "@/lib/sources/summary";
import { requirePage } from "../../_lib/session";
import { SourceFacts } from "./_components/source-facts";
import { StateBadge } from "./_components/state-badge";
import { UrlBox } from "./_components/url-box";
import { publicOrigin } from "./_lib/public-url";

export const metadata: Metadata = { title: "Sources" };

export default async function SourcesPage() {
  const { db, actor } = await requirePage("sources.read", "/sources");
  const [sources, origin] = await Promise.all([listSources({ db, actor, sources: sourcesFromEnv() }), publicOrigin()]);
  const now = new Date();
  return (
    <>
      <div className="page-head">
        <h1>Sources</h1>
        {can(actor.role, "sources.manage") && (
          <Link className="button" href="/sources/new">
            Add a source
          </Link>
        )}
      </div>
      <p className="muted break">
        Each source is one endpoint: paste its URL and secret into the provider&apos;s webhook settings. Sources
        declared by the deploy (environment variables, SOURCES_FILE) are shown here and changed there.
      </p>
      {sources.length === 0 && <p className="panel muted">No sources yet.</p>}
      <div className="source-list">
        {sources.map((s) => (
          <article key={s.slug} className="panel source-card" data-source={s.slug} aria-label={`Source ${s.slug}`}>
            <div className="source-head">
              <h2 className="flush">
                <Link href={`/sources/${encodeURIComponent(s.slug)}`}>{s.name}</Link>{" "}
                <span className="mono muted source-slug">{s.slug}</span>
              </h2>
              <span className="source-kind">
                {s.providerLabel} <StateBadge state={s.state} />
              </span>
            </div>
            <UrlBox url={`${origin}${s.path}`} />
            <SourceFacts source={s} now={now} />
            {s.readOnly && (
              <p className="muted source-origin" data-testid="origin">
                Read-only: {s.originLabel}.
              </p>
            )}
            {s.unsealError && (
              <p className="notice error" role="alert">
                {s.unsealError}
              </p>
            )}
          </article>
        ))}
      </div>
    </>
  );
}
