"use client";

import { NewPasswordInput, SignInEmailField } from "@/components/account-fields";
import { useKeptFormAction } from "@/components/use-kept-form-action";
import { FormMessage } from "@/components/form-message";
import { Button } from "@/components/ui/button";
import { Label } from "@/components/ui/input";
import { completeSetupAction } from "./actions";

export function SetupForm({
  token,
  passwordRules,
}: {
  token: string;
  passwordRules: { minLength: number; maxLength: number };
}) {
  const { state, dispatch, pending, submit } = useKeptFormAction(completeSetupAction);
  return (
    <form className="flex flex-col gap-3" action={dispatch} onSubmit={submit}>
      <input type="hidden" name="token" value={token} />
      <SignInEmailField />
      <Label>
        Password
        <NewPasswordInput name="password" rules={passwordRules} rulesId="setup-password-rules" />
      </Label>
      <p id="setup-password-rules" className="text-xs text-muted-foreground">
        {passwordRules.minLength} to {passwordRules.maxLength} characters, any characters (spaces too).
      </p>
      <FormMessage state={state} />
      <Button type="submit" disabled={pending} className="w-full">
        {pending ? "Creating…" : "Create the admin"}
      </Button>
    </form>
  );
}
