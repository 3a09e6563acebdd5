import Link from "@/components/link";
import type { ReactNode } from "react";
import { Time } from "@/components/time";
import { Badge } from "@/components/ui/badge";
import { cn } from "@/components/ui/cn";
import type { EventDetail } from "@/lib/console/event-detail";
import type { DashboardLink } from "@/lib/providers/dashboard-links";
import type { ResolvedSource } from "@/lib/sources/types";
import { DashboardLinks } from "@/components/dashboard-links";
import { entityHref } from "../../../_components/links";
import type { providerTime } from "./format";
import { TabLink } from "./event-tabs";
import { Version } from "./version";
import { plural } from "@/lib/format/words";

/** Subjects shown as links; a payload can name many (line items), the rest are counted. */
const SUBJECT_LIMIT = 12;

/** `span`: "phone" takes the whole row on phones (two columns there), "all" at every width. */
function Fact({ label, children, span }: { label: string; children: ReactNode; span?: "phone" | "all" }) {
  return (
    <div
      className={cn("min-w-0", span === "phone" && "col-span-2 sm:col-span-1", span === "all" && "col-span-full")}
      data-fact={label}
    >
      <dt className="text-xs text-muted-foreground">{label}</dt>
      <dd className="mt-0.5 text-sm break-words">{children}</dd>
    </div>
  );
}

function Signature({ detail, source }: { detail: EventDetail; source: ResolvedSource | undefined }) {
  const e = detail.event;
  const check = detail.signature;
  const configured = e.verifiedWith ? source?.secrets.find((s) => s.fingerprint === e.verifiedWith) : undefined;
  const arrival =
    e.via === "replay" ? (
      <>Fetched from the provider&apos;s API by a replay: no delivery signed it.</>
    ) : e.verifiedWith ? (
      <>
        Verified at arrival with secret <span className="font-mono break-all">{e.verifiedWith}</span>
        <span className="text-muted-foreground">
          {configured
            ? configured.expiresAt
              ? " (still configured, expiring)"
              : " (still configured)"
            : " (no longer configured: rotated out)"}
        </span>
      </>
    ) : (
      <span className="text-muted-foreground">
        Which secret verified it at arrival was not recorded (an older row).
      </span>
    );
  const now =
    check.state === "verifies" ? (
      <Badge tone="success">yes</Badge>
    ) : check.state === "fails" ? (
      <>
        <Badge tone="danger">no</Badge> <span className="text-muted-foreground">{check.reason}</span>
      </>
    ) : check.state === "unsigned" ? (
      <>
        <Badge tone="neutral">not signed</Badge> <span className="text-muted-foreground">{check.reason}</span>
      </>
    ) : (
      <span className="text-muted-foreground">no secret is configured for this source</span>
    );
  return (
    <>
      <span className="block">{arrival}</span>
      <span className="mt-1 flex flex-wrap items-center gap-1.5" data-verifies-now="">
        <span className="text-muted-foreground">Verifies with the current secret:</span> {now}
      </span>
    </>
  );
}

export function EventFacts({
  detail,
  source,
  provided,
  maxAttempts,
  dashboard,
}: {
  detail: EventDetail;
  source: ResolvedSource | undefined;
  provided: ReturnType<typeof providerTime>;
  maxAttempts: number;
  /** Pages about this event's objects in the provider's dashboard. */
  dashboard: DashboardLink[];
}) {
  const e = detail.event;
  const subjects = e.subjectIds;
  const used = e.attempts - e.attemptsBase;
  const dups = detail.deliveryCount - 1;
  return (
    <dl className="grid grid-cols-2 gap-x-6 gap-y-3 lg:grid-cols-3">
      <Fact label="Provider time">
        {provided ? (
          <>
            <Time value={provided.value} className="font-mono" />{" "}
            <span className="text-xs text-muted-foreground">
              (payload <code className="font-mono text-xs">{provided.field}</code>)
            </span>
          </>
        ) : (
          <span className="text-muted-foreground">not in the payload</span>
        )}
      </Fact>
      <Fact label="Received">
        <Time value={e.receivedAt} ms className="font-mono" />
      </Fact>
      <Fact label="Settled">
        {e.settledAt ? (
          <Time value={e.settledAt} ms className="font-mono" />
        ) : (
          <span className="text-muted-foreground">{e.status === "dead" ? "never: it is dead" : "not yet"}</span>
        )}
      </Fact>
      <Fact label="Source">
        <span className="flex flex-wrap items-center gap-1.5">
          <Badge tone="outline">{e.source}</Badge>
          {source && source.provider !== e.source && <span className="text-muted-foreground">{source.provider}</span>}
          {e.via === "replay" && <Badge tone="info">via replay</Badge>}
        </span>
      </Fact>
      <Fact label="Type" span="phone">
        <span className="font-mono text-[0.8125rem] break-all">{e.eventType}</span>
      </Fact>
      <Fact label="Entity" span="phone">
        {e.entityType && e.entityId ? (
          <>
            <Link className="text-primary hover:underline" href={entityHref(e.source, e.entityType, e.entityId)}>
              {e.entityType} <span className="font-mono text-[0.8125rem] break-all">{e.entityId}</span>
            </Link>
            {e.entityVersion !== null && (
              <span className="block text-xs text-muted-foreground">
                version <Version value={e.entityVersion} />
              </span>
            )}
          </>
        ) : (
          <span className="text-muted-foreground">none</span>
        )}
      </Fact>
      <Fact label="Deliveries">
        <TabLink tab="deliveries">
          {plural(detail.deliveryCount, "time")}
          {dups > 0 && <> ({plural(dups, "duplicate")})</>}
        </TabLink>
      </Fact>
      <Fact label="Attempts">
        {e.attempts === 0 ? "none yet" : `${used} of ${maxAttempts}`}
        {e.attemptsBase > 0 && (
          <span className="text-muted-foreground"> ({e.attempts} in all: a requeue restarted the budget)</span>
        )}
      </Fact>
      <Fact label="Signature" span="phone">
        <Signature detail={detail} source={source} />
      </Fact>
      {dashboard.length > 0 && (
        <Fact label="In the provider's dashboard" span="all">
          <DashboardLinks links={dashboard} />
        </Fact>
      )}
      <Fact label="Subjects" span="all">
        {subjects.length === 0 ? (
          <span className="text-muted-foreground">none found in the payload</span>
        ) : (
          <span className="flex flex-wrap gap-x-2.5 gap-y-1">
            {subjects.slice(0, SUBJECT_LIMIT).map((s) => (
              <Link
                key={s}
                className="font-mono text-[0.8125rem] break-all text-primary hover:underline"
                href={`/subjects/${encodeURIComponent(s)}`}
              >
                {s}
              </Link>
            ))}
            {subjects.length > SUBJECT_LIMIT && (
              <span className="text-muted-foreground">and {subjects.length - SUBJECT_LIMIT} more</span>
            )}
          </span>
        )}
      </Fact>
    </dl>
  );
}
