"use client";

import { useActionState, useState, useTransition, type FormEvent } from "react";
import { FormMessage } from "@/components/form-message";
import { rotateSecretAction } from "../actions";
import { IssuedSecretBox } from "./issued-secret";

type Retire = "at" | "now" | "keep";

/**
 * Rotation: a new secret (pasted or generated) and when the ones there now stop verifying, the overlap
 * while the provider switches. `defaultRetireAt` is a UTC datetime-local value (24 h ahead).
 */
export function RotateSecret(props: { slug: string; defaultRetireAt: string }) {
  const [round, setRound] = useState(0);
  return <RotateSecretForm key={round} {...props} done={() => setRound((n) => n + 1)} />;
}

function RotateSecretForm({
  slug,
  defaultRetireAt,
  done,
}: {
  slug: string;
  defaultRetireAt: string;
  done: () => void;
}) {
  const [state, dispatch, pending] = useActionState(rotateSecretAction, undefined);
  const [, startTransition] = useTransition();
  const [retire, setRetire] = useState<Retire>("at");
  const [open, setOpen] = useState(false);
  // By hand, not through the form's action: React would reset the form, losing what was typed on an error.
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const data = new FormData(e.currentTarget);
    startTransition(() => dispatch(data));
  };
  if (state?.ok)
    return (
      <div className="rotate">
        <IssuedSecretBox issued={state.data} title="New secret added" />
        <button type="button" className="secondary" onClick={done}>
          Done
        </button>
      </div>
    );
  return (
    <div className="rotate">
      {!open ? (
        <button type="button" className="secondary" onClick={() => setOpen(true)}>
          Rotate secret…
        </button>
      ) : (
        <form className="stack panel source-form" onSubmit={submit} aria-label="Rotate secret">
          <input type="hidden" name="slug" value={slug} />
          <label>
            New secret
            <input name="secret" autoComplete="off" spellCheck={false} placeholder="blank: generate one" />
            <span className="hint">
              Paste the provider&apos;s new secret, or leave blank to generate one (shown once).
            </span>
          </label>
          <fieldset className="choices">
            <legend>The secrets there now</legend>
            <label className="choice">
              <input type="radio" name="retire" value="at" checked={retire === "at"} onChange={() => setRetire("at")} />
              stop verifying at (UTC)
              <input
                name="retireAt"
                type="datetime-local"
                step={1}
                defaultValue={defaultRetireAt}
                aria-label="Old secrets stop verifying at (UTC)"
                disabled={retire !== "at"}
              />
            </label>
            <label className="choice">
              <input
                type="radio"
                name="retire"
                value="now"
                checked={retire === "now"}
                onChange={() => setRetire("now")}
              />
              stop verifying now
            </label>
            <label className="choice">
              <input
                type="radio"
                name="retire"
                value="keep"
                checked={retire === "keep"}
                onChange={() => setRetire("keep")}
              />
              keep verifying (expire them later, one by one)
            </label>
          </fieldset>
          <div className="actions">
            <button type="submit" disabled={pending}>
              {pending ? "Adding…" : "Add the new secret"}
            </button>
            <button type="button" className="secondary" disabled={pending} onClick={() => setOpen(false)}>
              Close
            </button>
          </div>
          {state && !state.ok && <FormMessage state={state} success="" />}
        </form>
      )}
    </div>
  );
}
