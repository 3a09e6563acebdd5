import { LockIcon } from "lucide-react";
import type { ReactNode } from "react";
import { Time } from "@/components/time";
import { Badge } from "@/components/ui/badge";
import { Card, CardContent, CardHeader } from "@/components/ui/card";
import type { DestinationOverview } from "@/lib/forward/reads";
import { plural } from "@/lib/format/words";
import { Fact } from "../../sources/_components/source-facts";
import { ago } from "../../sources/_components/format";
import { DESTINATION_STATE, FORMAT_WORDS, MODE_WORDS, ms, percent } from "./forward-words";

function Filters({ d }: { d: DestinationOverview }) {
  const list = (items: string[] | null, every: string) =>
    items ? <span className="font-mono text-xs break-all">{items.join(", ")}</span> : <span>{every}</span>;
  return (
    <>
      {list(d.sources, "every source")} · {list(d.types, "every type")}
    </>
  );
}

function Health({ d, now }: { d: DestinationOverview; now: Date }) {
  return (
    <>
      <Fact term="24 h">
        {d.attempts === 0 ? (
          <span className="text-muted-foreground">no attempts</span>
        ) : (
          <>
            <span data-figure="success">{percent(d.successRate!)} answered 2xx</span> of {plural(d.attempts, "attempt")}{" "}
            · p50 <span data-figure="p50">{ms(d.p50Ms)}</span> · p95 {ms(d.p95Ms)}
          </>
        )}
      </Fact>
      <Fact term="Backlog">
        <span data-figure="backlog">{plural(d.backlog, "forward")}</span>
        {d.backlog > 0 && (
          <span className="text-muted-foreground">
            {" "}
            ({d.pending.toLocaleString("en")} pending, {d.failed.toLocaleString("en")} failed,{" "}
            {d.sending.toLocaleString("en")} sending)
          </span>
        )}
        {d.oldestWaitingAt && (
          <span className="block text-xs text-muted-foreground">
            oldest waiting since {ago(d.oldestWaitingAt, now)} (<Time value={d.oldestWaitingAt} /> UTC)
          </span>
        )}
      </Fact>
      <Fact term="Breaker">
        {d.breakerOpenUntil ? (
          <span className="text-destructive" data-figure="breaker">
            open until <Time value={d.breakerOpenUntil} /> UTC, after {plural(d.failuresInRow, "failure")} in a row
          </span>
        ) : (
          <span data-figure="breaker">
            closed
            {d.failuresInRow > 0 && (
              <span className="text-muted-foreground"> ({plural(d.failuresInRow, "failure")} in a row)</span>
            )}
          </span>
        )}
      </Fact>
      <Fact term="Last error">
        {d.lastError ? (
          <>
            <span className="font-mono text-xs break-words text-destructive">{d.lastError.error}</span>{" "}
            <span className="text-xs text-muted-foreground">
              {ago(d.lastError.at, now)} (<Time value={d.lastError.at} /> UTC)
            </span>
          </>
        ) : (
          <span className="text-muted-foreground">none in 24 h</span>
        )}
      </Fact>
    </>
  );
}

function Signing({ d }: { d: DestinationOverview }) {
  if (d.origin === "file")
    return (
      <Fact term="Secret">
        from <code className="font-mono text-xs">{d.secretEnv}</code>
      </Fact>
    );
  return (
    <Fact term="Secrets">
      {d.secrets.length === 0 ? (
        <span className="text-destructive">none signs: its forwards wait</span>
      ) : (
        <ul className="flex flex-col gap-0.5" data-testid="secrets">
          {d.secrets.map((s) => (
            <li key={s.id} data-fingerprint={s.fingerprint}>
              <code className="font-mono text-xs">{s.fingerprint}</code>{" "}
              <span className="text-xs text-muted-foreground">
                {s.expiresAt ? (
                  <>
                    signs until <Time value={s.expiresAt} /> UTC
                  </>
                ) : (
                  "signs"
                )}
              </span>
            </li>
          ))}
        </ul>
      )}
    </Fact>
  );
}

/** One destination: what it is, how it has answered over 24 h, what waits; `actions` are what the role may do. */
export function DestinationCard({ d, now, actions }: { d: DestinationOverview; now: Date; actions?: ReactNode }) {
  return (
    <article data-destination={d.name} aria-label={`Destination ${d.name}`} className="min-w-0">
      <Card className="h-full">
        <CardHeader>
          <h2 className="min-w-0 font-mono text-sm leading-6 font-semibold break-all">{d.name}</h2>
          <span className="flex flex-wrap items-center gap-1.5 text-xs text-muted-foreground">
            {d.mode} · {d.format}
            <Badge
              tone={DESTINATION_STATE[d.state].tone}
              title={DESTINATION_STATE[d.state].meaning}
              data-destination-state={d.state}
            >
              {d.state}
            </Badge>
            {d.breakerOpenUntil && <Badge tone="danger">breaker open</Badge>}
          </span>
        </CardHeader>
        <CardContent className="flex flex-col gap-3">
          <p className="rounded-md border bg-muted/50 px-2.5 py-1.5 font-mono text-xs break-all" data-testid="url">
            {d.shownUrl}
          </p>
          <dl className="grid grid-cols-[minmax(0,auto)_minmax(0,1fr)] gap-x-4 gap-y-1.5 text-sm">
            <Fact term="Sends">
              {MODE_WORDS[d.mode]}, as the {FORMAT_WORDS[d.format]}
            </Fact>
            <Fact term="Filters">
              <Filters d={d} />
            </Fact>
            <Health d={d} now={now} />
            <Signing d={d} />
            <Fact term="Limits">
              <span className="text-xs">
                {d.maxInFlight} in flight · {ms(d.timeoutMs)} timeout ·{" "}
                {d.ratePerSecond ? `${d.ratePerSecond}/s` : "no rate limit"} · {plural(d.maxAttempts, "attempt")}
              </span>
            </Fact>
          </dl>
          {d.origin === "file" && (
            <p className="flex items-start gap-1.5 text-xs text-muted-foreground">
              <LockIcon className="mt-0.5 size-3.5 shrink-0" aria-hidden />
              <span className="min-w-0 wrap-anywhere" data-testid="origin">
                Declared in DESTINATIONS_FILE: the console pauses and resumes it; its settings and secret change there.
              </span>
            </p>
          )}
          {actions && <div className="flex flex-col gap-4 border-t pt-3">{actions}</div>}
        </CardContent>
      </Card>
    </article>
  );
}
