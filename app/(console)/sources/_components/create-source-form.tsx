"use client";

import { useActionState, useState, useTransition, type FormEvent } from "react";
import { FormMessage } from "@/components/form-message";
import { createSourceAction } from "../actions";
import { IssuedSecretBox } from "./issued-secret";

export interface KindChoice {
  kind: string;
  label: string;
}

/** After a success the form is replaced by the one-time secret; "Add another" starts a fresh form. */
export function CreateSource(props: { kinds: KindChoice[]; examples: Record<string, string>; origin: string }) {
  const [round, setRound] = useState(0);
  return <CreateSourceForm key={round} {...props} again={() => setRound((n) => n + 1)} />;
}

function CreateSourceForm({
  kinds,
  examples,
  origin,
  again,
}: {
  kinds: KindChoice[];
  examples: Record<string, string>;
  origin: string;
  again: () => void;
}) {
  const [state, dispatch, pending] = useActionState(createSourceAction, undefined);
  const [, startTransition] = useTransition();
  const [kind, setKind] = useState(kinds[0]?.kind ?? "stripe");
  const [options, setOptions] = useState(Object.values(examples)[0] ?? "{}");
  // Submitted by hand, not through the form's action: React resets a form after its action, and on an
  // error the admin should see what they typed, not an empty form.
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const data = new FormData(e.currentTarget);
    startTransition(() => dispatch(data));
  };

  if (state?.ok)
    return (
      <>
        <IssuedSecretBox
          issued={state.data}
          url={`${origin}/api/webhooks/${state.data.slug}`}
          title={`Source ${state.data.slug} added`}
        />
        <p>
          <button type="button" className="secondary" onClick={again}>
            Add another source
          </button>
        </p>
      </>
    );

  return (
    <form className="stack panel source-form" onSubmit={submit} aria-label="Add a source">
      <div className="form-grid">
        <label>
          Slug
          <input name="slug" required maxLength={63} placeholder="billing-stripe" />
          <span className="hint">The URL segment: lowercase letters, digits, dashes.</span>
        </label>
        <label>
          Name
          <input name="name" required maxLength={100} placeholder="Stripe (billing)" />
        </label>
        <label>
          Provider kind
          <select name="provider" value={kind} onChange={(e) => setKind(e.target.value)}>
            {kinds.map((k) => (
              <option key={k.kind} value={k.kind}>
                {k.label}
              </option>
            ))}
          </select>
        </label>
        <label>
          Tolerance (seconds)
          <input name="toleranceSeconds" type="number" min={1} max={86400} placeholder="default" />
          <span className="hint">How old a signed timestamp may be.</span>
        </label>
      </div>
      <label>
        Secret
        <input name="secret" autoComplete="off" spellCheck={false} placeholder="blank: generate one" />
        <span className="hint">
          Paste the provider&apos;s signing secret, or leave blank to generate one (shown once, to paste there).
        </span>
      </label>
      {kind === "standard" && (
        <label>
          Type field
          <input name="typePath" placeholder="data.event_type" spellCheck={false} />
          <span className="hint">Optional: the dot path of the event type when the payload has no top-level type.</span>
        </label>
      )}
      {kind === "generic" && (
        <label>
          Options (JSON)
          <textarea
            name="options"
            rows={14}
            wrap="off"
            spellCheck={false}
            value={options}
            onChange={(e) => setOptions(e.target.value)}
          />
          <span className="hint">
            The scheme: signature header, algorithm, encoding, where the id, type and entity are. Start from an example:{" "}
            {Object.entries(examples).map(([name, json]) => (
              <button key={name} type="button" className="link-button" onClick={() => setOptions(json)}>
                {name}
              </button>
            ))}
          </span>
        </label>
      )}
      <div className="actions">
        <button type="submit" disabled={pending}>
          {pending ? "Adding…" : "Add source"}
        </button>
      </div>
      {state && !state.ok && <FormMessage state={state} success="" />}
    </form>
  );
}
