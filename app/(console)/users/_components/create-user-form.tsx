"use client";

import { useActionState } from "react";
import { FormMessage } from "@/components/form-message";
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
      <FormMessage state={state} success="User added." />
    </form>
  );
}
