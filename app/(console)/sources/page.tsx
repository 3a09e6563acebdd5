import { LockIcon, PlusIcon } from "lucide-react";
import type { Metadata } from "next";
import Link from "@/components/link";
import { PageHeader } from "@/components/page-header";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardHeader } from "@/components/ui/card";
import { can } from "@/lib/roles";
import { sourcesFromEnv } from "@/lib/sources/from-env";
import { listSources } from "@/lib/sources/summary";
import { requirePage } from "../../_lib/session";
import { SourceFacts } from "./_components/source-facts";
import { StateBadge } from "./_components/state-badge";
import { UrlBox } from "./_components/url-box";
import { publicOrigin } from "../../_lib/public-url";

export const metadata: Metadata = { title: "Sources" };

export default async function SourcesPage() {
  const { db, actor } = await requirePage("sources.read", "/sources");
  const [sources, origin] = await Promise.all([listSources({ db, actor, sources: sourcesFromEnv() }), publicOrigin()]);
  const now = new Date();
  return (
    <>
      <PageHeader
        title="Sources"
        description={
          "Each source is one endpoint: paste its URL and secret into the provider's webhook settings. " +
          "Sources declared by the deploy (environment variables, SOURCES_FILE) are shown here and changed there."
        }
        actions={
          can(actor.role, "sources.manage") && (
            <Button asChild>
              <Link href="/sources/new">
                <PlusIcon aria-hidden />
                Add a source
              </Link>
            </Button>
          )
        }
      />
      {sources.length === 0 && (
        <p className="rounded-lg border border-dashed p-6 text-center text-sm text-muted-foreground">No sources yet.</p>
      )}
      <div className="grid grid-cols-1 gap-4 lg:grid-cols-2">
        {sources.map((s) => (
          <article key={s.slug} data-source={s.slug} aria-label={`Source ${s.slug}`} className="min-w-0">
            <Card className="h-full">
              <CardHeader>
                <h2 className="min-w-0 text-sm leading-6 font-semibold break-words">
                  <Link href={`/sources/${encodeURIComponent(s.slug)}`} className="hover:underline">
                    {s.name}
                  </Link>{" "}
                  <span className="font-mono text-xs font-normal text-muted-foreground">{s.slug}</span>
                </h2>
                <span className="flex items-center gap-2 text-xs text-muted-foreground">
                  {s.providerLabel} <StateBadge state={s.state} />
                </span>
              </CardHeader>
              <CardContent className="flex flex-col gap-3">
                <UrlBox url={`${origin}${s.path}`} />
                <SourceFacts source={s} now={now} />
                {s.readOnly && (
                  <p className="flex items-start gap-1.5 text-xs text-muted-foreground">
                    <LockIcon className="mt-0.5 size-3.5 shrink-0" aria-hidden />
                    <span data-testid="origin" className="min-w-0 wrap-anywhere">
                      Read-only: {s.originLabel}.
                    </span>
                  </p>
                )}
                {s.unsealError && (
                  <Alert tone="danger" role="alert">
                    {s.unsealError}
                  </Alert>
                )}
              </CardContent>
            </Card>
          </article>
        ))}
      </div>
    </>
  );
}
