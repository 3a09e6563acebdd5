"use client";

import { useActionState, useState, useTransition } from "react";
import { FormMessage } from "@/components/form-message";
import type { ErasureCounts } from "@/lib/retention/erase";
import { eraseSubjectAction, previewErasureAction } from "../actions";

const n = (v: number) => v.toLocaleString("en");

/** Preview how many events mention a subject, then erase exactly those (a changed count refuses). */
export function ErasureForm() {
  const [preview, previewAction, previewing] = useActionState(previewErasureAction, undefined);
  const [pending, startTransition] = useTransition();
  const [done, setDone] = useState<{ ok: true; data: ErasureCounts } | { ok: false; error: string }>();
  const p = preview?.ok ? preview.data : undefined;
  const erase = () => {
    if (!p) return;
    if (!window.confirm(`Erase ${n(p.events)} events? Their payloads, raw bodies and headers cannot be brought back.`))
      return;
    startTransition(async () => {
      setDone(await eraseSubjectAction({ subject: p.subject, reference: p.reference, expectedEvents: p.events }));
    });
  };
  return (
    <>
      <form className="row panel" action={previewAction} onSubmit={() => setDone(undefined)}>
        <label>
          Customer id or email
          <input name="subject" required maxLength={320} autoComplete="off" placeholder="cus_… or jenny@example.com" />
        </label>
        <label>
          Request reference (optional)
          <input name="reference" maxLength={200} autoComplete="off" placeholder="ticket id" />
        </label>
        <button type="submit" disabled={previewing}>
          {previewing ? "Counting…" : "Preview"}
        </button>
      </form>
      {preview && !preview.ok && <FormMessage state={preview} success="" />}
      {p && (
        <section className="panel" aria-label="Preview" style={{ marginTop: 12 }}>
          <p data-testid="erasure-preview">
            <strong>{n(p.events)}</strong> events mention this subject
            {p.pending > 0 ? ` (${n(p.pending)} not processed yet: they will end dead)` : ""} ·{" "}
            <strong>{n(p.transitions)}</strong> timeline rows.
          </p>
          <button
            type="button"
            className="danger"
            onClick={erase}
            disabled={pending || p.events === 0 || done?.ok === true}
          >
            {p.events === 0 ? "Nothing to erase" : pending ? "Erasing…" : `Erase ${n(p.events)} events`}
          </button>
          {done && (
            <FormMessage
              state={done}
              success={done.ok ? `Erased ${n(done.data.events)} events. The audit log has the record.` : ""}
            />
          )}
        </section>
      )}
    </>
  );
}
