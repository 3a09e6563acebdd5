"use client";

import { useState, useTransition } from "react";
import {
  AlertDialog,
  AlertDialogAction,
  AlertDialogCancel,
  AlertDialogContent,
  AlertDialogDescription,
  AlertDialogFooter,
  AlertDialogHeader,
  AlertDialogTitle,
  AlertDialogTrigger,
} from "@/components/ui/alert-dialog";
import { Button } from "@/components/ui/button";
import { NativeSelect } from "@/components/ui/input";
import { setUserDisabledAction, setUserRoleAction } from "../actions";

/**
 * The role menu and Disable/Enable, stacked on phones so both stay on screen at 390 px. A new role and a
 * disable are asked about first: picking from a menu, or one click, should not change what a person may do.
 */
export function UserRowActions({
  userId,
  email,
  role,
  disabled,
  roles,
  roleWords,
  self,
}: {
  userId: string;
  email: string;
  role: string;
  disabled: boolean;
  roles: readonly string[];
  /** What each role may do, as the page says it. */
  roleWords: Readonly<Record<string, string>>;
  self: boolean;
}) {
  const [pending, startTransition] = useTransition();
  const [error, setError] = useState<string | undefined>();
  const [newRole, setNewRole] = useState<string | undefined>();
  const run = (fn: () => Promise<{ ok: boolean; error?: string }>) =>
    startTransition(async () => {
      const result = await fn();
      setError(result.ok ? undefined : result.error);
    });
  const confirmRole = (next: string) => {
    setNewRole(undefined);
    run(() => setUserRoleAction({ userId, role: next }));
  };
  return (
    <div className="flex flex-wrap items-center gap-1.5 md:flex-nowrap md:justify-end">
      <NativeSelect
        aria-label="Role"
        title={`Role of ${email}`}
        value={role}
        disabled={pending}
        className="h-8 w-28"
        onChange={(e) => {
          if (e.target.value !== role) setNewRole(e.target.value);
        }}
      >
        {roles.map((r) => (
          <option key={r}>{r}</option>
        ))}
      </NativeSelect>
      <AlertDialog open={newRole !== undefined} onOpenChange={(open) => !open && setNewRole(undefined)}>
        <AlertDialogContent>
          <AlertDialogHeader>
            <AlertDialogTitle>
              Make <span className="[overflow-wrap:anywhere]">{email}</span> {newRole}?
            </AlertDialogTitle>
            <AlertDialogDescription>
              From {role} to {newRole}: {newRole && roleWords[newRole]}. It applies at their next page.
            </AlertDialogDescription>
            {self && newRole !== "admin" && (
              <p className="rounded-md border border-warning/40 bg-warning/10 px-3 py-2 text-sm" role="note">
                This is your own account: you lose this page and the other admin pages at once.
              </p>
            )}
          </AlertDialogHeader>
          <AlertDialogFooter>
            <AlertDialogCancel>Keep {role}</AlertDialogCancel>
            <AlertDialogAction onClick={() => newRole && confirmRole(newRole)}>Make {newRole}</AlertDialogAction>
          </AlertDialogFooter>
        </AlertDialogContent>
      </AlertDialog>
      {self ? (
        <span className="px-1 text-xs text-muted-foreground md:w-20 md:text-center">(you)</span>
      ) : disabled ? (
        <Button
          size="sm"
          variant="outline"
          disabled={pending}
          className="w-20"
          title={`Let ${email} sign in again`}
          onClick={() => run(() => setUserDisabledAction({ userId, disabled: false }))}
        >
          Enable
        </Button>
      ) : (
        <AlertDialog>
          <AlertDialogTrigger asChild>
            <Button
              size="sm"
              variant="outline"
              disabled={pending}
              className="w-20 text-destructive hover:text-destructive"
              title={`Sign ${email} out and refuse their sign-ins`}
            >
              Disable
            </Button>
          </AlertDialogTrigger>
          <AlertDialogContent>
            <AlertDialogHeader>
              <AlertDialogTitle>
                Disable <span className="[overflow-wrap:anywhere]">{email}</span>?
              </AlertDialogTitle>
              <AlertDialogDescription>
                They are signed out at once and cannot sign in until an admin enables them again. Their account and what
                the audit log says they did stay.
              </AlertDialogDescription>
            </AlertDialogHeader>
            <AlertDialogFooter>
              <AlertDialogCancel>Cancel</AlertDialogCancel>
              <AlertDialogAction
                variant="destructive"
                onClick={() => run(() => setUserDisabledAction({ userId, disabled: true }))}
              >
                Disable
              </AlertDialogAction>
            </AlertDialogFooter>
          </AlertDialogContent>
        </AlertDialog>
      )}
      {error && (
        <p role="alert" className="text-xs text-destructive sm:max-w-48">
          {error}
        </p>
      )}
    </div>
  );
}
