import { Badge } from "@/components/ui/badge";
import type { EventDetail } from "@/lib/console/event-detail";
import { isSignatureHeader } from "./format";

export function HeadersTab({ detail, options }: { detail: EventDetail; options: unknown }) {
  const e = detail.event;
  const headers = Object.entries(e.headers).sort(([a], [b]) => a.localeCompare(b));
  return (
    <div className="flex min-w-0 flex-col gap-5">
      <section className="flex min-w-0 flex-col gap-2" aria-labelledby="stored-headers">
        <h3 id="stored-headers" className="text-sm font-semibold">
          Headers as received
        </h3>
        <p className="text-xs text-muted-foreground">
          Stored once, from the delivery that claimed the event (cookies and authorization left out). Duplicate
          deliveries&apos; headers are not stored. The Deliveries tab lists every delivery.
        </p>
        {/* Name over value on phones, side by side from sm: a value (a signature) can be long. */}
        <dl className="divide-y rounded-lg border bg-card empty:hidden" data-headers="">
          {headers.map(([name, value]) => (
            <div
              key={name}
              data-header={name}
              className="grid grid-cols-1 gap-0.5 px-3 py-2 sm:grid-cols-[minmax(10rem,16rem)_1fr] sm:gap-4"
            >
              <dt className="font-mono text-xs text-muted-foreground [overflow-wrap:anywhere]">
                {name}
                {isSignatureHeader(name, options) && (
                  <Badge tone="info" className="ml-1.5 font-sans">
                    signature
                  </Badge>
                )}
              </dt>
              <dd className="font-mono text-xs break-all">{value}</dd>
            </div>
          ))}
        </dl>
        {headers.length === 0 && (
          <p className="rounded-lg border bg-card px-3 py-6 text-center text-sm text-muted-foreground">
            No headers were stored.
          </p>
        )}
      </section>
    </div>
  );
}
