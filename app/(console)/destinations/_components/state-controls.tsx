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
import type { DestinationState } from "@/db/schema/forward";
import { setDestinationStateAction } from "../actions";
import { DESTINATION_STATE } from "./forward-words";
import { RunStatus, useRun } from "./use-run";

const VERBS: Record<DestinationState, string> = { active: "Resume", paused: "Pause", disabled: "Disable" };

/**
 * Pause / Resume, and for console destinations Disable / Enable; each asked first with what the destination
 * then does. A declared destination is paused and resumed only (the file says whether it exists).
 */
export function StateControls({ name, state, declared }: { name: string; state: DestinationState; declared: boolean }) {
  const { pending, message, run } = useRun();
  const targets: DestinationState[] = (
    state === "active" ? ["paused", "disabled"] : state === "paused" ? ["active", "disabled"] : ["active"]
  ).filter((to) => !(declared && (to === "disabled" || state === "disabled"))) as DestinationState[];
  const verb = (to: DestinationState) => (to === "active" && state === "disabled" ? "Enable" : VERBS[to]);
  return (
    <div className="flex flex-col gap-1.5">
      <div className="flex flex-wrap gap-2">
        {targets.map((to) => (
          <AlertDialog key={to}>
            <AlertDialogTrigger asChild>
              <Button
                size="sm"
                variant="outline"
                className={to === "active" ? "text-foreground" : "text-destructive"}
                disabled={pending}
              >
                {verb(to)}…
              </Button>
            </AlertDialogTrigger>
            <AlertDialogContent>
              <AlertDialogHeader>
                <AlertDialogTitle>
                  {verb(to)} <span className="font-mono">{name}</span>?
                </AlertDialogTitle>
                <AlertDialogDescription>It then {DESTINATION_STATE[to].meaning}.</AlertDialogDescription>
              </AlertDialogHeader>
              <AlertDialogFooter>
                <AlertDialogCancel>Cancel</AlertDialogCancel>
                <AlertDialogAction
                  variant={to === "active" ? "default" : "destructive"}
                  onClick={() =>
                    run(
                      () => setDestinationStateAction({ name, state: to }),
                      (d) => `Now ${d.state}.`,
                    )
                  }
                >
                  {verb(to)} {name}
                </AlertDialogAction>
              </AlertDialogFooter>
            </AlertDialogContent>
          </AlertDialog>
        ))}
      </div>
      <RunStatus message={message} />
    </div>
  );
}
