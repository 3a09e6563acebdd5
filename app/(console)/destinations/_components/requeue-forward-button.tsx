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
import { requeueForwardAction } from "../actions";
import { RunStatus, useRun } from "./use-run";

/** Ops, on the event page: one failed or dead forward back to pending, asked first. */
export function RequeueForwardButton({
  destination,
  source,
  eventId,
}: {
  destination: string;
  source: string;
  eventId: string;
}) {
  const { pending, message, run } = useRun();
  return (
    <span className="flex flex-col items-start gap-1">
      <AlertDialog>
        <AlertDialogTrigger asChild>
          <Button size="sm" variant="outline" className="text-foreground" disabled={pending}>
            Requeue
          </Button>
        </AlertDialogTrigger>
        <AlertDialogContent>
          <AlertDialogHeader>
            <AlertDialogTitle>
              Forward this event to <span className="font-mono">{destination}</span> again?
            </AlertDialogTitle>
            <AlertDialogDescription>
              Its forward goes back to pending with a fresh set of attempts and the same webhook-id, so your endpoint
              can tell it is the same delivery.
            </AlertDialogDescription>
          </AlertDialogHeader>
          <AlertDialogFooter>
            <AlertDialogCancel>Cancel</AlertDialogCancel>
            <AlertDialogAction
              onClick={() =>
                run(
                  () => requeueForwardAction({ destination, source, eventId }),
                  () => "Requeued: pending.",
                )
              }
            >
              Requeue forward
            </AlertDialogAction>
          </AlertDialogFooter>
        </AlertDialogContent>
      </AlertDialog>
      <RunStatus message={message} />
    </span>
  );
}
