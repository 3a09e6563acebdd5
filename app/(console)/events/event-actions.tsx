"use client";

import {
  AlertDialog,
  AlertDialogAction,
  AlertDialogCancel,
  AlertDialogContent,
  AlertDialogDescription,
  AlertDialogFooter,
  AlertDialogHeader,
  AlertDialogTitle,
  AlertDialogTrigger,
} from "@/components/ui/alert-dialog";
import { Button } from "@/components/ui/button";
import { useEventAction } from "./_components/use-event-action";

/**
 * The event page's ops actions; after one the page is fetched again, so the summary and attempts agree.
 * Requeue asks first, and is not the page's primary button when the last error was permanent: retrying
 * cannot fix that until its cause is.
 */
export function EventActions({
  source,
  eventId,
  status,
  permanent,
}: {
  source: string;
  eventId: string;
  status: string;
  /** The last attempt's error was permanent. */
  permanent: boolean;
}) {
  const { pending, message, canRequeue, canProcess, requeue, processNow } = useEventAction(source, eventId, status);
  return (
    <>
      {canRequeue && (
        <AlertDialog>
          <AlertDialogTrigger asChild>
            <Button size="sm" variant={permanent ? "secondary" : "default"} disabled={pending}>
              Requeue
            </Button>
          </AlertDialogTrigger>
          <AlertDialogContent>
            <AlertDialogHeader>
              <AlertDialogTitle>Requeue this event?</AlertDialogTitle>
              <AlertDialogDescription>
                <span className="font-mono break-all">
                  {source}/{eventId}
                </span>{" "}
                goes back to waiting for a worker, with a fresh set of attempts.
              </AlertDialogDescription>
              {permanent && (
                <p className="rounded-md border border-warning/40 bg-warning/10 px-3 py-2 text-sm" role="note">
                  Its last error was permanent: retrying cannot fix it. Requeue once its cause is fixed (a handler or a
                  setting), or it goes dead again at its first attempt.
                </p>
              )}
            </AlertDialogHeader>
            <AlertDialogFooter>
              <AlertDialogCancel>Cancel</AlertDialogCancel>
              <AlertDialogAction onClick={requeue}>Requeue event</AlertDialogAction>
            </AlertDialogFooter>
          </AlertDialogContent>
        </AlertDialog>
      )}
      {canProcess && (
        <Button size="sm" variant="outline" className="text-foreground" disabled={pending} onClick={processNow}>
          Process now
        </Button>
      )}
      {message && (
        <span
          role="status"
          className={message.ok ? "basis-full text-xs text-muted-foreground" : "basis-full text-xs text-destructive"}
        >
          {message.text}
        </span>
      )}
    </>
  );
}
