"use client";

import { useActionState } from "react";
import { completeSetupAction } from "./actions";

export function SetupForm({ token }: { token: string }) {
  const [state, action, pending] = useActionState(completeSetupAction, undefined);
  return (
    <form className="stack" action={action}>
      <input type="hidden" name="token" value={token} />
      <label>
        Email
        <input name="email" type="email" required autoFocus />
      </label>
      <label>
        Password
        <input name="password" type="password" autoComplete="new-password" minLength={12} required />
      </label>
      {state && !state.ok && (
        <div className="notice error" role="alert">
          {state.error}
        </div>
      )}
      <button type="submit" disabled={pending}>
        Create the admin
      </button>
    </form>
  );
}
