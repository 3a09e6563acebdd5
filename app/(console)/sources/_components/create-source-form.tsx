"use client";

import { useState } from "react";
import { Field } from "@/components/field";
import { FormMessage } from "@/components/form-message";
import { Button } from "@/components/ui/button";
import { Card, CardContent } from "@/components/ui/card";
import { Input, NativeSelect, Textarea } from "@/components/ui/input";
import { useKeptFormAction } from "@/components/use-kept-form-action";
import type { SecretHint } from "@/lib/sources/secret-hints";
import { createSourceAction } from "../actions";
import { IssuedSecretBox } from "./issued-secret";
import { SecretInput } from "./secret-input";

export interface KindChoice {
  kind: string;
  label: string;
  /** Where this kind's secret comes from (lib/sources/secret-hints.ts). */
  secret: SecretHint;
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
  const { state, pending, submit } = useKeptFormAction(createSourceAction);
  const [kind, setKind] = useState(kinds[0]?.kind ?? "stripe");
  const [options, setOptions] = useState(Object.values(examples)[0] ?? "{}");
  const secret = kinds.find((k) => k.kind === kind)?.secret;

  if (state?.ok)
    return (
      <div className="flex flex-col gap-4">
        <IssuedSecretBox
          issued={state.data}
          url={`${origin}/api/webhooks/${state.data.slug}`}
          title={`Source ${state.data.slug} added`}
          providerIssued={secret?.issuedBy === "provider"}
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
              {(control) => (
                <Input
                  {...control}
                  name="slug"
                  required
                  maxLength={63}
                  placeholder="billing-stripe"
                  autoComplete="off"
                  spellCheck={false}
                />
              )}
            </Field>
            <Field id="src-name" label="Name">
              {(control) => <Input {...control} name="name" required maxLength={100} placeholder="Stripe (billing)" />}
            </Field>
            <Field id="src-provider" label="Provider kind">
              {(control) => (
                <NativeSelect {...control} name="provider" value={kind} onChange={(e) => setKind(e.target.value)}>
                  {kinds.map((k) => (
                    <option key={k.kind} value={k.kind}>
                      {k.label}
                    </option>
                  ))}
                </NativeSelect>
              )}
            </Field>
            <Field id="src-tolerance" label="Tolerance (seconds)" hint="How old a signed timestamp may be.">
              {(control) => (
                <Input
                  {...control}
                  name="toleranceSeconds"
                  type="number"
                  inputMode="numeric"
                  min={1}
                  max={86400}
                  placeholder="default"
                />
              )}
            </Field>
          </div>
          <Field id="src-secret" label="Secret" hint={secret?.text}>
            {(control) => <SecretInput {...control} issuedBy={secret?.issuedBy} />}
          </Field>
          {kind === "standard" && (
            <Field
              id="src-type-path"
              label="Type field"
              hint="Optional: the dot path of the event type when the payload has no top-level type."
            >
              {(control) => (
                <Input
                  {...control}
                  name="typePath"
                  placeholder="data.event_type"
                  spellCheck={false}
                  className="font-mono"
                />
              )}
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
              {(control) => (
                <Textarea
                  {...control}
                  name="options"
                  rows={14}
                  wrap="off"
                  spellCheck={false}
                  value={options}
                  onChange={(e) => setOptions(e.target.value)}
                  className="font-mono text-xs"
                />
              )}
            </Field>
          )}
          <div>
            <Button type="submit" disabled={pending}>
              {pending ? "Adding…" : "Add source"}
            </Button>
          </div>
          <FormMessage state={state} />
        </form>
      </CardContent>
    </Card>
  );
}
