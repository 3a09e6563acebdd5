"use client";

import { useActionState } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Input, Label } from "@/components/ui/input";
import { PasswordRules } from "../users/_components/password-rules";
import { changePasswordAction } from "./actions";

export function PasswordForm({ passwordRules }: { passwordRules: { minLength: number; maxLength: number } }) {
  const [state, action, pending] = useActionState(changePasswordAction, undefined);
  const lengths = { minLength: passwordRules.minLength, maxLength: passwordRules.maxLength };
  return (
    <form action={action} className="flex flex-col gap-3">
      <Label>
        Current password
        <Input name="currentPassword" type="password" autoComplete="current-password" required />
      </Label>
      <Label>
        New password
        <Input
          name="newPassword"
          type="password"
          autoComplete="new-password"
          aria-describedby="account-password-rules"
          required
          {...lengths}
        />
      </Label>
      <Label>
        Repeat new password
        <Input name="confirmPassword" type="password" autoComplete="new-password" required {...lengths} />
      </Label>
      <PasswordRules id="account-password-rules" {...passwordRules} />
      {state &&
        (state.ok ? (
          <Alert tone="success" role="status">
            Password changed. Your other sessions were signed out.
          </Alert>
        ) : (
          <Alert tone="danger" role="alert">
            {state.error}
          </Alert>
        ))}
      <div>
        <Button type="submit" disabled={pending}>
          {pending ? "Changing…" : "Change password"}
        </Button>
      </div>
    </form>
  );
}
