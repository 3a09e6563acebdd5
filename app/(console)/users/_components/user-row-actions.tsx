"use client";

import { useState, useTransition } from "react";
import { Button } from "@/components/ui/button";
import { NativeSelect } from "@/components/ui/input";
import { setUserDisabledAction, setUserRoleAction } from "../actions";

/** The role menu and Disable/Enable, stacked on phones so both stay on screen at 390 px. */
export function UserRowActions({
  userId,
  email,
  role,
  disabled,
  roles,
  self,
}: {
  userId: string;
  email: string;
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
    <div className="flex flex-col items-stretch gap-1.5 sm:flex-row sm:items-center sm:justify-end">
      <NativeSelect
        aria-label="Role"
        title={`Role of ${email}`}
        value={role}
        disabled={pending}
        className="h-8 w-28"
        onChange={(e) => run(() => setUserRoleAction({ userId, role: e.target.value }))}
      >
        {roles.map((r) => (
          <option key={r}>{r}</option>
        ))}
      </NativeSelect>
      {self ? (
        <span className="px-1 text-center text-xs text-muted-foreground sm:w-20">(you)</span>
      ) : (
        <Button
          size="sm"
          variant="outline"
          disabled={pending}
          className={disabled ? "sm:w-20" : "text-destructive hover:text-destructive sm:w-20"}
          title={disabled ? `Let ${email} sign in again` : `Sign ${email} out and refuse their sign-ins`}
          onClick={() => run(() => setUserDisabledAction({ userId, disabled: !disabled }))}
        >
          {disabled ? "Enable" : "Disable"}
        </Button>
      )}
      {error && (
        <p role="alert" className="text-xs text-destructive sm:max-w-48">
          {error}
        </p>
      )}
    </div>
  );
}
