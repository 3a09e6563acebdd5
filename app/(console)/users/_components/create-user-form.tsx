"use client";

import { useActionState } from "react";
import { createUserAction } from "../actions";

export function CreateUserForm({ roles }: { roles: readonly string[] }) {
  const [state, action, pending] = useActionState(createUserAction, undefined);
  return (
    <form className="row panel" action={action}>
      <label>
        Email
        <input name="email" type="email" required />
      </label>
      <label>
        Name
        <input name="name" />
      </label>
      <label>
        Role
        <select name="role" defaultValue="support">
          {roles.map((r) => (
            <option key={r}>{r}</option>
          ))}
        </select>
      </label>
      <label>
        Initial password
        <input name="password" type="password" autoComplete="new-password" minLength={12} required />
      </label>
      <button type="submit" disabled={pending}>
        Add user
      </button>
      {state && !state.ok && (
        <div className="notice error" role="alert">
          {state.error}
        </div>
      )}
      {state?.ok && (
        <div className="notice ok" role="status">
          User added.
        </div>
      )}
    </form>
  );
}
