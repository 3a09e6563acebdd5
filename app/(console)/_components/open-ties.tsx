import Link from "next/link";
import { utc } from "@/components/utc";
import type { Actor } from "@/lib/auth/roles";
import type { Db } from "@/db/client";
import { listOpenTies } from "@/lib/ledger/ties";
import { eventHref } from "../events/_components/links";

const entityHref = (source: string, type: string, id: string) =>
  `/entities/${encodeURIComponent(source)}/${encodeURIComponent(type)}/${encodeURIComponent(id)}`;

/**
 * The ties nothing could order (no chain evidence, no provider API), for a person to decide on the
 * entity's timeline. Empty most days; when not, each row says which state was kept.
 */
export async function OpenTies({ db, actor }: { db: Db; actor: Actor }) {
  const ties = await listOpenTies(db, actor, 10);
  return (
    <section className="panel">
      <h2 className="flush">Ties to decide</h2>
      {ties.length === 0 ? (
        <p className="muted">None: every same-second update was ordered by its evidence or the provider&apos;s API.</p>
      ) : (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th>When (UTC)</th>
                <th>Entity</th>
                <th>Not applied</th>
                <th>Kept</th>
              </tr>
            </thead>
            <tbody>
              {ties.map((t) => (
                <tr key={`${t.source}/${t.eventId}`}>
                  <td className="mono nowrap">{utc(t.recordedAt)}</td>
                  <td className="mono">
                    <Link href={entityHref(t.source, t.entityType, t.entityId)}>
                      {t.entityType} {t.entityId}
                    </Link>
                  </td>
                  <td className="mono clip">
                    <Link href={eventHref({ source: t.source, eventId: t.eventId })}>{t.eventId}</Link>
                  </td>
                  <td className="mono clip">
                    {t.keptEventId ? (
                      <Link href={eventHref({ source: t.source, eventId: t.keptEventId })}>{t.keptEventId}</Link>
                    ) : (
                      "—"
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
