"use client";

import { RotateCwIcon } from "lucide-react";
import { useState, type ReactNode } from "react";
import { Field } from "@/components/field";
import { FormMessage } from "@/components/form-message";
import { Button } from "@/components/ui/button";
import { useKeptFormAction } from "@/components/use-kept-form-action";
import { UtcInput } from "@/components/utc-input";
import type { SecretHint } from "@/lib/sources/secret-hints";
import { rotateSecretAction } from "../actions";
import { IssuedSecretBox } from "./issued-secret";
import { SecretInput } from "./secret-input";

type Retire = "at" | "now" | "keep";

/**
 * Rotation: a new secret (pasted or generated) and when the ones there now stop verifying, the overlap
 * while the provider switches. `defaultRetireAt` is 24 h UTC text, "2026-11-29 22:09" (a day ahead).
 */
export function RotateSecret(props: { slug: string; defaultRetireAt: string; secret: SecretHint }) {
  const [round, setRound] = useState(0);
  return <RotateSecretForm key={round} {...props} done={() => setRound((n) => n + 1)} />;
}

function RotateSecretForm({
  slug,
  defaultRetireAt,
  secret,
  done,
}: {
  slug: string;
  defaultRetireAt: string;
  secret: SecretHint;
  done: () => void;
}) {
  const { state, pending, submit } = useKeptFormAction(rotateSecretAction);
  const [retire, setRetire] = useState<Retire>("at");
  const [open, setOpen] = useState(false);
  if (state?.ok)
    return (
      <div className="flex flex-col gap-3">
        <IssuedSecretBox issued={state.data} title="New secret added" providerIssued={secret.issuedBy === "provider"} />
        <div>
          <Button variant="outline" onClick={done}>
            Done
          </Button>
        </div>
      </div>
    );
  if (!open)
    return (
      <div>
        <Button variant="outline" onClick={() => setOpen(true)}>
          <RotateCwIcon aria-hidden />
          Rotate secret…
        </Button>
      </div>
    );
  const choice = (value: Retire, label: string, extra?: ReactNode) => (
    <div className="flex flex-wrap items-center gap-x-3 gap-y-1.5">
      <label className="flex items-center gap-2 text-sm">
        <input
          type="radio"
          name="retire"
          value={value}
          checked={retire === value}
          onChange={() => setRetire(value)}
          className="size-4 accent-primary"
        />
        {label}
      </label>
      {extra}
    </div>
  );
  return (
    <form
      className="flex max-w-2xl flex-col gap-4 rounded-lg border bg-muted/30 p-4"
      onSubmit={submit}
      aria-label="Rotate secret"
    >
      <input type="hidden" name="slug" value={slug} />
      <Field id="rotate-secret" label="New secret" hint={secret.text}>
        {(control) => <SecretInput {...control} issuedBy={secret.issuedBy} />}
      </Field>
      <fieldset className="flex min-w-0 flex-col gap-2">
        <legend className="mb-1 text-xs font-medium text-muted-foreground">The secrets there now</legend>
        {choice(
          "at",
          "stop verifying at (UTC)",
          <UtcInput
            name="retireAt"
            defaultValue={defaultRetireAt}
            aria-label="Old secrets stop verifying at (UTC)"
            disabled={retire !== "at"}
            className="w-44"
          />,
        )}
        {choice("now", "stop verifying now")}
        {choice("keep", "keep verifying (expire them later, one by one)")}
      </fieldset>
      <div className="flex flex-wrap gap-2">
        <Button type="submit" disabled={pending}>
          {pending ? "Adding…" : "Add the new secret"}
        </Button>
        <Button variant="outline" disabled={pending} onClick={() => setOpen(false)}>
          Close
        </Button>
      </div>
      <FormMessage state={state} />
    </form>
  );
}
