"use client";

import { useActionState } from "react";
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
      {state && !state.ok && (
        <div className="notice error" role="alert">
          {state.error}
        </div>
      )}
      {state?.ok && (
        <div className="notice ok" role="status">
          Password changed. Your other sessions were signed out.
        </div>
      )}
      <button type="submit" disabled={pending}>
        Change password
      </button>
    </form>
  );
}
