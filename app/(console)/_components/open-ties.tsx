import Link from "@/components/link";
import { Time } from "@/components/time";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { can, type Actor } from "@/lib/roles";
import type { Db } from "@/db/client";
import { listOpenTies } from "@/lib/console/ties";
import { ApplyTieButton } from "../events/_components/apply-tie-button";
import { entityHref, eventHref } from "../events/_components/links";
import { SectionHead } from "./section-head";

const idLink = "font-mono text-xs break-all text-primary hover:underline";

/**
 * The ties nothing could order (no chain evidence, no provider API), for a person to decide here or on the
 * entity's timeline. Empty most days; when not, each row says which state was kept.
 */
export async function OpenTies({ db, actor }: { db: Db; actor: Actor }) {
  const ties = await listOpenTies(db, actor, 10);
  const mayDecide = can(actor.role, "events.apply-tie");
  return (
    <section aria-labelledby="open-ties" className="min-w-0">
      <SectionHead
        title={<span id="open-ties">Ties to decide</span>}
        description="Two updates with the same version that neither their evidence nor the provider's API could order"
      />
      {ties.length === 0 ? (
        <p className="rounded-lg border border-dashed px-4 py-5 text-sm text-muted-foreground">
          None: every same-second update was ordered by its evidence or the provider&apos;s API.
        </p>
      ) : (
        <Table>
          <TableHeader>
            <TableRow>
              <TableHead>Entity</TableHead>
              <TableHead from="md">Recorded</TableHead>
              <TableHead from="sm">Not applied</TableHead>
              <TableHead from="lg">Kept</TableHead>
              {mayDecide && <TableHead className="text-right">Decide</TableHead>}
            </TableRow>
          </TableHeader>
          <TableBody>
            {ties.map((t) => (
              <TableRow key={`${t.source}/${t.eventId}`} data-event-id={t.eventId}>
                <TableCell className="max-w-64">
                  <Link href={entityHref(t.source, t.entityType, t.entityId)} className={idLink}>
                    {t.entityType} {t.entityId}
                  </Link>
                  <div className="text-xs text-muted-foreground">{t.source}</div>
                  <div className="mt-1 flex flex-col gap-0.5 text-xs text-muted-foreground md:hidden">
                    <Time value={t.recordedAt} />
                  </div>
                  <div className="mt-0.5 text-xs text-muted-foreground sm:hidden">
                    not applied:{" "}
                    <Link href={eventHref({ source: t.source, eventId: t.eventId })} className={idLink}>
                      {t.eventId}
                    </Link>
                  </div>
                  <div className="mt-0.5 text-xs text-muted-foreground lg:hidden">
                    kept:{" "}
                    {t.keptEventId ? (
                      <Link href={eventHref({ source: t.source, eventId: t.keptEventId })} className={idLink}>
                        {t.keptEventId}
                      </Link>
                    ) : (
                      "—"
                    )}
                  </div>
                </TableCell>
                <TableCell from="md" className="whitespace-nowrap text-xs">
                  <Time value={t.recordedAt} />
                </TableCell>
                <TableCell from="sm" label="Not applied" className="max-w-56">
                  <Link href={eventHref({ source: t.source, eventId: t.eventId })} className={idLink}>
                    {t.eventId}
                  </Link>
                </TableCell>
                <TableCell from="lg" className="max-w-56">
                  {t.keptEventId ? (
                    <Link href={eventHref({ source: t.source, eventId: t.keptEventId })} className={idLink}>
                      {t.keptEventId}
                    </Link>
                  ) : (
                    "—"
                  )}
                </TableCell>
                {mayDecide && (
                  <TableCell label="Decide" className="text-right">
                    <ApplyTieButton source={t.source} eventId={t.eventId} keptEventId={t.keptEventId} />
                  </TableCell>
                )}
              </TableRow>
            ))}
          </TableBody>
        </Table>
      )}
    </section>
  );
}
