"use client";

import { useActionState } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Input, Label } from "@/components/ui/input";
import { completeSetupAction } from "./actions";

export function SetupForm({
  token,
  passwordRules,
}: {
  token: string;
  passwordRules: { minLength: number; maxLength: number };
}) {
  const [state, action, pending] = useActionState(completeSetupAction, undefined);
  return (
    <form className="flex flex-col gap-3" action={action}>
      <input type="hidden" name="token" value={token} />
      <Label>
        Email
        <Input name="email" type="email" autoComplete="username" required autoFocus />
      </Label>
      <Label>
        Password
        <Input
          name="password"
          type="password"
          autoComplete="new-password"
          minLength={passwordRules.minLength}
          maxLength={passwordRules.maxLength}
          aria-describedby="setup-password-rules"
          required
        />
      </Label>
      <p id="setup-password-rules" className="text-xs text-muted-foreground">
        {passwordRules.minLength} to {passwordRules.maxLength} characters, any characters (spaces too).
      </p>
      {state && !state.ok && (
        <Alert tone="danger" role="alert">
          {state.error}
        </Alert>
      )}
      <Button type="submit" disabled={pending} className="w-full">
        {pending ? "Creating…" : "Create the admin"}
      </Button>
    </form>
  );
}
