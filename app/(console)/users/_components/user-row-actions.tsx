"use client";

import { useState, useTransition } from "react";
import { setUserDisabledAction, setUserRoleAction } from "../actions";

export function UserRowActions({
  userId,
  role,
  disabled,
  roles,
  self,
}: {
  userId: string;
  role: string;
  disabled: boolean;
  roles: readonly string[];
  self: boolean;
}) {
  const [pending, startTransition] = useTransition();
  const [error, setError] = useState<string | undefined>();
  const run = (fn: () => Promise<{ ok: boolean; error?: string }>) =>
    startTransition(async () => {
      const result = await fn();
      setError(result.ok ? undefined : result.error);
    });
  return (
    <div className="actions">
      <select
        aria-label="Role"
        value={role}
        disabled={pending}
        onChange={(e) => run(() => setUserRoleAction({ userId, role: e.target.value }))}
      >
        {roles.map((r) => (
          <option key={r}>{r}</option>
        ))}
      </select>
      {!self && (
        <button
          type="button"
          className={disabled ? "secondary" : "danger"}
          disabled={pending}
          onClick={() => run(() => setUserDisabledAction({ userId, disabled: !disabled }))}
        >
          {disabled ? "Enable" : "Disable"}
        </button>
      )}
      {error && (
        <span className="notice error" role="alert">
          {error}
        </span>
      )}
    </div>
  );
}
