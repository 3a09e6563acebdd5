"use client";

import { EraserIcon } from "lucide-react";
import { useActionState, useState, useTransition, type FormEvent } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Input, Label } from "@/components/ui/input";
import type { ErasureCounts, ErasureResult } from "@/lib/retention/erase";
import { eraseSubjectAction, previewErasureAction } from "../actions";

const n = (v: number) => v.toLocaleString("en");

/** How the events were found: the search index, and the read of every stored raw body that always runs. */
function foundWords(p: ErasureCounts): string {
  const secs = `${(p.scan.ms / 1000).toLocaleString("en", { maximumFractionDigits: 1 })} s`;
  const scanOnly = p.events - p.indexed;
  if (p.events === 0)
    return `Not in the search index, nor in the raw body or headers of any of the ${n(p.scan.read)} stored events (read in ${secs}).`;
  if (scanOnly > 0)
    return (
      `${n(p.indexed)} in the search index, ${n(scanOnly)} found only by reading raw bodies and headers ` +
      `(${n(p.scan.read)} stored events read in ${secs}).`
    );
  return `All in the search index; the raw bodies and headers of ${n(p.scan.read)} stored events were read too, in ${secs}.`;
}

/** Preview how many events mention a subject, then erase exactly those (a changed count refuses). */
export function ErasureForm() {
  const [preview, previewAction, previewing] = useActionState(previewErasureAction, undefined);
  const [, startPreview] = useTransition();
  const [pending, startTransition] = useTransition();
  const [asking, setAsking] = useState(false);
  const [done, setDone] = useState<{ ok: true; data: ErasureResult } | { ok: false; error: string }>();
  const p = preview?.ok ? preview.data : undefined;
  // By hand, not through the form's action: React resets a form after its action, and the subject should stay.
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const data = new FormData(e.currentTarget);
    setDone(undefined);
    setAsking(false);
    startPreview(() => previewAction(data));
  };
  const erase = () => {
    if (!p) return;
    startTransition(async () => {
      setDone(await eraseSubjectAction({ subject: p.subject, reference: p.reference, expectedEvents: p.events }));
      setAsking(false);
    });
  };
  return (
    <div className="flex max-w-3xl flex-col gap-4">
      <Card>
        <CardContent>
          <form
            action={previewAction}
            onSubmit={submit}
            aria-label="Find a data subject"
            className="flex flex-col gap-4"
          >
            <div className="grid grid-cols-1 gap-4 sm:grid-cols-2">
              <Label>
                Customer id or email
                <Input
                  name="subject"
                  required
                  maxLength={320}
                  autoComplete="off"
                  spellCheck={false}
                  placeholder="cus_… or jenny@example.com"
                />
              </Label>
              <Label>
                Request reference (optional)
                <Input name="reference" maxLength={200} autoComplete="off" placeholder="ticket id" />
              </Label>
            </div>
            <div>
              <Button type="submit" variant="outline" disabled={previewing}>
                {previewing ? "Counting…" : "Preview"}
              </Button>
            </div>
            {preview && !preview.ok && (
              <Alert tone="danger" role="alert">
                {preview.error}
              </Alert>
            )}
          </form>
        </CardContent>
      </Card>
      {p && (
        <Card aria-label="Preview" className={p.events > 0 ? "border-destructive/40" : undefined}>
          <CardHeader>
            <div className="min-w-0">
              <CardTitle>What would be erased</CardTitle>
              <CardDescription className="break-all">
                <span className="font-mono">{p.subject}</span>
                {p.reference && ` · reference ${p.reference}`}
              </CardDescription>
            </div>
          </CardHeader>
          <CardContent className="flex flex-col gap-4">
            <p data-testid="erasure-preview" className="text-sm">
              <strong>{n(p.events)}</strong> events mention this subject
              {p.pending > 0 ? ` (${n(p.pending)} not processed yet: they will end dead)` : ""} ·{" "}
              <strong>{n(p.transitions)}</strong> timeline rows.
            </p>
            <p data-testid="erasure-found" className="text-xs text-muted-foreground">
              {foundWords(p)}
            </p>
            {asking && !done?.ok ? (
              <div
                role="alertdialog"
                aria-label={`Confirm erasing ${n(p.events)} events`}
                className="flex flex-col gap-3 rounded-md border border-destructive/30 bg-destructive/5 p-3 text-sm"
              >
                <p>Erase {n(p.events)} events? Their payloads, raw bodies and headers cannot be brought back.</p>
                <div className="flex flex-wrap gap-2">
                  <Button variant="destructive" disabled={pending} onClick={erase}>
                    {pending ? "Erasing…" : `Erase ${n(p.events)} events`}
                  </Button>
                  <Button variant="outline" disabled={pending} onClick={() => setAsking(false)}>
                    Cancel
                  </Button>
                </div>
              </div>
            ) : (
              <div>
                <Button
                  variant="destructive"
                  onClick={() => setAsking(true)}
                  disabled={p.events === 0 || done?.ok === true}
                >
                  <EraserIcon aria-hidden />
                  {p.events === 0 ? "Nothing to erase" : `Erase ${n(p.events)} events…`}
                </Button>
              </div>
            )}
            {done && (
              <Alert tone={done.ok ? "success" : "danger"} role={done.ok ? "status" : "alert"}>
                {done.ok ? `Erased ${n(done.data.events)} events. The audit log has the record.` : done.error}
              </Alert>
            )}
          </CardContent>
        </Card>
      )}
    </div>
  );
}
