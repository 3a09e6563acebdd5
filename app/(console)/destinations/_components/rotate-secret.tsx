"use client";

import { RotateCwIcon } from "lucide-react";
import { useState, useTransition } from "react";
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
import { Label, NativeSelect } from "@/components/ui/input";
import { rotateDestinationSecretAction, type IssuedView } from "../actions";
import { IssuedSecretBox } from "./issued-secret";
import { RunStatus, type RunMessage } from "./use-run";

const OVERLAPS = [
  [24, "for 24 hours (default)"],
  [72, "for 3 days"],
  [168, "for 7 days"],
  [1, "for 1 hour"],
  [0, "no: stop it now"],
] as const;

/** Admins: a new secret, shown once; the old one keeps signing for the chosen overlap so the team can switch. */
export function RotateSecret({ name }: { name: string }) {
  const [pending, startTransition] = useTransition();
  const [overlap, setOverlap] = useState(24);
  const [issued, setIssued] = useState<IssuedView>();
  const [message, setMessage] = useState<RunMessage>();
  const rotate = () =>
    startTransition(async () => {
      setMessage(undefined);
      const r = await rotateDestinationSecretAction({ name, overlapHours: overlap });
      if (r.ok) setIssued(r.data);
      else setMessage({ ok: false, text: r.error });
    });
  if (issued)
    return (
      <div className="flex flex-col gap-3">
        <IssuedSecretBox issued={issued} title={`New secret for ${name}`} />
        <div>
          <Button size="sm" variant="outline" onClick={() => setIssued(undefined)}>
            Done
          </Button>
        </div>
      </div>
    );
  return (
    <div className="flex flex-col gap-1.5">
      <AlertDialog>
        <AlertDialogTrigger asChild>
          <Button size="sm" variant="outline" className="w-fit text-foreground" disabled={pending}>
            <RotateCwIcon aria-hidden />
            Rotate secret…
          </Button>
        </AlertDialogTrigger>
        <AlertDialogContent>
          <AlertDialogHeader>
            <AlertDialogTitle>
              Rotate the signing secret of <span className="font-mono">{name}</span>?
            </AlertDialogTitle>
            <AlertDialogDescription>
              A new secret is made and shown once. Forwards carry a signature from each secret that signs, so your
              endpoint keeps verifying while you switch it to the new one.
            </AlertDialogDescription>
          </AlertDialogHeader>
          <div className="flex flex-col gap-1">
            <Label htmlFor={`overlap-${name}`}>The current secret keeps signing</Label>
            <NativeSelect id={`overlap-${name}`} value={overlap} onChange={(e) => setOverlap(Number(e.target.value))}>
              {OVERLAPS.map(([hours, words]) => (
                <option key={hours} value={hours}>
                  {words}
                </option>
              ))}
            </NativeSelect>
          </div>
          <AlertDialogFooter>
            <AlertDialogCancel>Cancel</AlertDialogCancel>
            <AlertDialogAction onClick={rotate}>Rotate secret</AlertDialogAction>
          </AlertDialogFooter>
        </AlertDialogContent>
      </AlertDialog>
      <RunStatus message={message} />
    </div>
  );
}
