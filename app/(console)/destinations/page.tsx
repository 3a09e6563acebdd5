import type { Metadata } from "next";
import { PageHeader } from "@/components/page-header";
import { can } from "@/lib/roles";
import { listDestinationOverview, listDestinationSettings } from "@/lib/forward/reads";
import { FORWARD_REQUEUE_MAX } from "@/lib/forward/requeue";
import { requirePage } from "../../_lib/session";
import { utcInputValue } from "../sources/_components/format";
import { DestinationCard } from "./_components/destination-card";
import { AddDestination, EditDestination } from "./_components/destination-form";
import { ReplayWindowForm } from "./_components/replay-window-form";
import { RequeueForwards } from "./_components/requeue-forwards";
import { RotateSecret } from "./_components/rotate-secret";
import { StateControls } from "./_components/state-controls";
import { TestDelivery } from "./_components/test-delivery";

export const metadata: Metadata = { title: "Destinations" };

const DAY_MS = 24 * 3600 * 1000;

export default async function DestinationsPage() {
  const { db, actor } = await requirePage("destinations.read", "/destinations");
  const manage = can(actor.role, "destinations.manage");
  const [destinations, settings] = await Promise.all([
    listDestinationOverview(db, actor),
    manage ? listDestinationSettings(db, actor) : Promise.resolve([]),
  ]);
  const canTest = can(actor.role, "destinations.test");
  const canRequeue = can(actor.role, "forwards.requeue");
  const canReplay = can(actor.role, "forwards.replay");
  const now = new Date();
  const window = { from: utcInputValue(new Date(now.getTime() - DAY_MS)), to: utcInputValue(now) };
  return (
    <>
      <PageHeader
        title="Destinations"
        description={
          "Your own endpoints: each settled event that matches a destination's filters is forwarded to it, signed " +
          "(Standard Webhooks), with one webhook-id per event that stays the same on every retry and replay. " +
          "Destinations declared by the deploy (DESTINATIONS_FILE) are shown here and changed there."
        }
      />
      {manage && (
        <div className="mb-5">
          <AddDestination />
        </div>
      )}
      {destinations.length === 0 && (
        <p className="rounded-lg border border-dashed p-6 text-center text-sm text-muted-foreground">
          No destinations yet.
        </p>
      )}
      <div className="grid grid-cols-1 gap-4 xl:grid-cols-2">
        {destinations.map((d) => {
          const fromConsole = d.origin === "console";
          const edit = settings.find((s) => s.name === d.name);
          const newest = d.mode === "newest";
          const actions = (
            <>
              {manage && (
                <div className="flex flex-col gap-2">
                  <StateControls name={d.name} state={d.state} declared={!fromConsole} />
                  {fromConsole && <RotateSecret name={d.name} />}
                  {edit && (
                    <EditDestination
                      initial={{
                        name: edit.name,
                        url: edit.url,
                        sources: edit.sources,
                        types: edit.types,
                        mode: edit.mode,
                        format: edit.format,
                        maxInFlight: edit.maxInFlight,
                        timeoutMs: edit.timeoutMs,
                        ratePerSecond: edit.ratePerSecond,
                        maxAttempts: edit.maxAttempts,
                      }}
                    />
                  )}
                </div>
              )}
              {canTest && (
                <div className="flex flex-col gap-1.5">
                  <p className="text-xs text-muted-foreground">
                    Sends one signed <code className="font-mono">ledger.test</code> envelope, whatever its state;
                    nothing is queued.
                  </p>
                  <TestDelivery name={d.name} />
                </div>
              )}
              {canRequeue && (
                <div className="flex flex-col gap-1.5">
                  <p className="text-xs text-muted-foreground">
                    Failed or dead forwards back to pending, counted first.
                  </p>
                  <RequeueForwards name={d.name} newest={newest} max={FORWARD_REQUEUE_MAX} />
                </div>
              )}
              {canReplay && d.state !== "disabled" && (
                <ReplayWindowForm name={d.name} newest={newest} defaultFrom={window.from} defaultTo={window.to} />
              )}
            </>
          );
          return (
            <DestinationCard
              key={d.name}
              d={d}
              now={now}
              actions={manage || canTest || canRequeue || canReplay ? actions : undefined}
            />
          );
        })}
      </div>
    </>
  );
}
