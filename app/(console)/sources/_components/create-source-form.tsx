"use client";

import { useActionState, useState, useTransition, type FormEvent } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Card, CardContent } from "@/components/ui/card";
import { Input, NativeSelect, Textarea } from "@/components/ui/input";
import { createSourceAction } from "../actions";
import { Field } from "./field";
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
      <div className="flex flex-col gap-4">
        <IssuedSecretBox
          issued={state.data}
          url={`${origin}/api/webhooks/${state.data.slug}`}
          title={`Source ${state.data.slug} added`}
        />
        <div>
          <Button variant="outline" onClick={again}>
            Add another source
          </Button>
        </div>
      </div>
    );

  return (
    <Card>
      <CardContent>
        <form className="flex max-w-3xl flex-col gap-4" onSubmit={submit} aria-label="Add a source">
          <div className="grid grid-cols-1 gap-4 sm:grid-cols-2">
            <Field id="src-slug" label="Slug" hint="The URL segment: lowercase letters, digits, dashes.">
              <Input
                id="src-slug"
                name="slug"
                required
                maxLength={63}
                placeholder="billing-stripe"
                aria-describedby="src-slug-hint"
                autoComplete="off"
                spellCheck={false}
              />
            </Field>
            <Field id="src-name" label="Name">
              <Input id="src-name" name="name" required maxLength={100} placeholder="Stripe (billing)" />
            </Field>
            <Field id="src-provider" label="Provider kind">
              <NativeSelect id="src-provider" name="provider" value={kind} onChange={(e) => setKind(e.target.value)}>
                {kinds.map((k) => (
                  <option key={k.kind} value={k.kind}>
                    {k.label}
                  </option>
                ))}
              </NativeSelect>
            </Field>
            <Field id="src-tolerance" label="Tolerance (seconds)" hint="How old a signed timestamp may be.">
              <Input
                id="src-tolerance"
                name="toleranceSeconds"
                type="number"
                inputMode="numeric"
                min={1}
                max={86400}
                placeholder="default"
                aria-describedby="src-tolerance-hint"
              />
            </Field>
          </div>
          <Field
            id="src-secret"
            label="Secret"
            hint="Paste the provider's signing secret, or leave blank to generate one (shown once, to paste there)."
          >
            <Input
              id="src-secret"
              name="secret"
              autoComplete="off"
              spellCheck={false}
              placeholder="blank: generate one"
              aria-describedby="src-secret-hint"
              className="font-mono"
            />
          </Field>
          {kind === "standard" && (
            <Field
              id="src-type-path"
              label="Type field"
              hint="Optional: the dot path of the event type when the payload has no top-level type."
            >
              <Input
                id="src-type-path"
                name="typePath"
                placeholder="data.event_type"
                spellCheck={false}
                aria-describedby="src-type-path-hint"
                className="font-mono"
              />
            </Field>
          )}
          {kind === "generic" && (
            <Field
              id="src-options"
              label="Options (JSON)"
              hint={
                <>
                  The scheme: signature header, algorithm, encoding, where the id, type and entity are. Start from an
                  example:{" "}
                  {Object.entries(examples).map(([name, json], i) => (
                    <span key={name}>
                      {i > 0 && " · "}
                      <Button variant="link" size="sm" className="h-auto p-0 text-xs" onClick={() => setOptions(json)}>
                        {name}
                      </Button>
                    </span>
                  ))}
                </>
              }
            >
              <Textarea
                id="src-options"
                name="options"
                rows={14}
                wrap="off"
                spellCheck={false}
                value={options}
                onChange={(e) => setOptions(e.target.value)}
                aria-describedby="src-options-hint"
                className="font-mono text-xs"
              />
            </Field>
          )}
          <div>
            <Button type="submit" disabled={pending}>
              {pending ? "Adding…" : "Add source"}
            </Button>
          </div>
          {state && !state.ok && (
            <Alert tone="danger" role="alert">
              {state.error}
            </Alert>
          )}
        </form>
      </CardContent>
    </Card>
  );
}
