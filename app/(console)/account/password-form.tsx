"use client";

import { useActionState } from "react";
import { FormMessage } from "@/components/form-message";
import { changePasswordAction } from "./actions";

export function PasswordForm() {
  const [state, action, pending] = useActionState(changePasswordAction, undefined);
  return (
    <form className="stack panel" action={action} style={{ maxWidth: 380 }}>
      <label>
        Current password
        <input name="currentPassword" type="password" autoComplete="current-password" required />
      </label>
      <label>
        New password
        <input name="newPassword" type="password" autoComplete="new-password" minLength={12} required />
      </label>
      <label>
        Repeat new password
        <input name="confirmPassword" type="password" autoComplete="new-password" minLength={12} required />
      </label>
      <FormMessage state={state} success="Password changed. Your other sessions were signed out." />
      <button type="submit" disabled={pending}>
        Change password
      </button>
    </form>
  );
}
