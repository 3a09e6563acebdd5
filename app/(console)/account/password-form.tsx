"use client";

import { NewPasswordInput } from "@/components/account-fields";
import { useKeptFormAction } from "@/components/use-kept-form-action";
import { FormMessage } from "@/components/form-message";
import { Button } from "@/components/ui/button";
import { Input, Label } from "@/components/ui/input";
import { PasswordRules } from "../users/_components/password-rules";
import { changePasswordAction } from "./actions";

export function PasswordForm({ passwordRules }: { passwordRules: { minLength: number; maxLength: number } }) {
  const { state, dispatch, pending, submit } = useKeptFormAction(changePasswordAction, { resetOnSuccess: true });
  return (
    <form action={dispatch} onSubmit={submit} className="flex flex-col gap-3">
      <Label>
        Current password
        <Input name="currentPassword" type="password" autoComplete="current-password" required />
      </Label>
      <Label>
        New password
        <NewPasswordInput name="newPassword" rules={passwordRules} rulesId="account-password-rules" />
      </Label>
      <Label>
        Repeat new password
        <NewPasswordInput name="confirmPassword" rules={passwordRules} />
      </Label>
      <PasswordRules id="account-password-rules" {...passwordRules} />
      <FormMessage state={state} success="Password changed. Your other sessions were signed out." />
      <div>
        <Button type="submit" disabled={pending}>
          {pending ? "Changing…" : "Change password"}
        </Button>
      </div>
    </form>
  );
}
