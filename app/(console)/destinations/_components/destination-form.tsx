"use client";

import { PencilIcon, PlusIcon } from "lucide-react";
import { useState } from "react";
import { Field } from "@/components/field";
import { FormMessage } from "@/components/form-message";
import { Button } from "@/components/ui/button";
import { Card, CardContent } from "@/components/ui/card";
import { Input, NativeSelect } from "@/components/ui/input";
import { useKeptFormAction } from "@/components/use-kept-form-action";
import { createDestinationAction, updateDestinationAction } from "../actions";
import { FORMAT_WORDS, MODE_WORDS } from "./forward-words";
import { IssuedSecretBox } from "./issued-secret";

/** A destination's settings as the form shows them (plain values: they cross to the browser). */
export interface DestinationSettings {
  name: string;
  url: string;
  sources: string[] | null;
  types: string[] | null;
  mode: "every" | "newest";
  format: "standard" | "provider";
  maxInFlight: number;
  timeoutMs: number;
  ratePerSecond: number | null;
  maxAttempts: number;
}

/** Admins: "Add a destination" opens the form; after a success the form gives way to the one-time secret. */
export function AddDestination() {
  const [round, setRound] = useState(0);
  const [open, setOpen] = useState(false);
  if (!open)
    return (
      <Button onClick={() => setOpen(true)}>
        <PlusIcon aria-hidden />
        Add a destination
      </Button>
    );
  return (
    <CreateForm
      key={round}
      close={() => {
        setOpen(false);
        setRound((n) => n + 1);
      }}
    />
  );
}

function CreateForm({ close }: { close: () => void }) {
  const { state, pending, submit } = useKeptFormAction(createDestinationAction);
  if (state?.ok)
    return (
      <div className="flex w-full flex-col gap-3">
        <IssuedSecretBox issued={state.data} title={`Destination ${state.data.name} added`} />
        <div>
          <Button variant="outline" onClick={close}>
            Done
          </Button>
        </div>
      </div>
    );
  return (
    <Card className="w-full">
      <CardContent>
        <form className="flex max-w-3xl flex-col gap-4" onSubmit={submit} aria-label="Add a destination">
          <SettingsFields />
          <div className="flex flex-wrap gap-2">
            <Button type="submit" disabled={pending}>
              {pending ? "Adding…" : "Add destination"}
            </Button>
            <Button variant="outline" disabled={pending} onClick={close}>
              Cancel
            </Button>
          </div>
          <FormMessage state={state} />
        </form>
      </CardContent>
    </Card>
  );
}

/** Admins, console destinations: the same fields, filled in; the name stays. */
export function EditDestination({ initial }: { initial: DestinationSettings }) {
  const [open, setOpen] = useState(false);
  const { state, pending, submit } = useKeptFormAction(updateDestinationAction);
  if (!open)
    return (
      <div className="flex flex-col gap-2">
        <div>
          <Button size="sm" variant="outline" onClick={() => setOpen(true)}>
            <PencilIcon aria-hidden />
            Edit settings…
          </Button>
        </div>
        {state?.ok && (
          <p role="status" className="text-xs text-muted-foreground">
            Settings saved.
          </p>
        )}
      </div>
    );
  return (
    <form
      className="flex flex-col gap-4 rounded-lg border bg-muted/30 p-4"
      onSubmit={submit}
      aria-label={`Edit ${initial.name}`}
    >
      <input type="hidden" name="name" value={initial.name} />
      <SettingsFields initial={initial} idPrefix={`edit-${initial.name}`} />
      <div className="flex flex-wrap gap-2">
        <Button type="submit" size="sm" disabled={pending}>
          {pending ? "Saving…" : "Save settings"}
        </Button>
        <Button size="sm" variant="outline" disabled={pending} onClick={() => setOpen(false)}>
          Close
        </Button>
      </div>
      <FormMessage state={state} success="Settings saved." />
    </form>
  );
}

function SettingsFields({ initial, idPrefix = "dst" }: { initial?: DestinationSettings; idPrefix?: string }) {
  const id = (name: string) => `${idPrefix}-${name}`;
  return (
    <>
      <div className="grid grid-cols-1 gap-4 sm:grid-cols-2">
        {!initial && (
          <Field id={id("name")} label="Name" hint="Lowercase letters, digits, dashes: its handle here and in logs.">
            {(control) => (
              <Input
                {...control}
                name="name"
                required
                maxLength={63}
                placeholder="billing-service"
                autoComplete="off"
                spellCheck={false}
              />
            )}
          </Field>
        )}
        <Field id={id("url")} label="URL" hint="Your endpoint: http:// or https://. Redirects are not followed.">
          {(control) => (
            <Input
              {...control}
              name="url"
              type="url"
              required
              maxLength={2000}
              defaultValue={initial?.url}
              placeholder="https://api.example.com/webhooks/ledger"
              spellCheck={false}
              className="font-mono"
            />
          )}
        </Field>
        <Field id={id("sources")} label="Sources" hint="Source slugs, comma-separated; empty: every source.">
          {(control) => (
            <Input
              {...control}
              name="sources"
              defaultValue={initial?.sources?.join(", ")}
              placeholder="stripe, shopify"
              spellCheck={false}
              className="font-mono"
            />
          )}
        </Field>
        <Field id={id("types")} label="Event types" hint="Exact, or with * (invoice.*); empty: every type.">
          {(control) => (
            <Input
              {...control}
              name="types"
              defaultValue={initial?.types?.join(", ")}
              placeholder="customer.subscription.*, invoice.paid"
              spellCheck={false}
              className="font-mono"
            />
          )}
        </Field>
        <Field id={id("mode")} label="Mode">
          {(control) => (
            <NativeSelect {...control} name="mode" defaultValue={initial?.mode ?? "every"}>
              {Object.entries(MODE_WORDS).map(([value, words]) => (
                <option key={value} value={value}>
                  {value}: {words}
                </option>
              ))}
            </NativeSelect>
          )}
        </Field>
        <Field id={id("format")} label="Format">
          {(control) => (
            <NativeSelect {...control} name="format" defaultValue={initial?.format ?? "standard"}>
              {Object.entries(FORMAT_WORDS).map(([value, words]) => (
                <option key={value} value={value}>
                  {value}: {words}
                </option>
              ))}
            </NativeSelect>
          )}
        </Field>
      </div>
      <div className="grid grid-cols-2 gap-4 sm:grid-cols-4">
        <NumberField
          id={id("max-in-flight")}
          name="maxInFlight"
          label="In flight"
          value={initial?.maxInFlight}
          placeholder="10"
        />
        <NumberField
          id={id("timeout")}
          name="timeoutMs"
          label="Timeout (ms)"
          value={initial?.timeoutMs}
          placeholder="5000"
        />
        <NumberField
          id={id("rate")}
          name="ratePerSecond"
          label="Per second"
          value={initial?.ratePerSecond}
          placeholder="no limit"
        />
        <NumberField
          id={id("attempts")}
          name="maxAttempts"
          label="Attempts"
          value={initial?.maxAttempts}
          placeholder="10"
        />
      </div>
    </>
  );
}

function NumberField(props: {
  id: string;
  name: string;
  label: string;
  value: number | null | undefined;
  placeholder: string;
}) {
  return (
    <Field id={props.id} label={props.label}>
      {(control) => (
        <Input
          {...control}
          name={props.name}
          inputMode="numeric"
          defaultValue={props.value ?? undefined}
          placeholder={props.placeholder}
          autoComplete="off"
        />
      )}
    </Field>
  );
}
