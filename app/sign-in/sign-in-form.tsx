"use client";

import { createAuthClient } from "better-auth/react";
import { useRouter } from "next/navigation";
import { type FormEvent, useState, useTransition } from "react";
import { SignInEmailField } from "@/components/account-fields";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Input, Label } from "@/components/ui/input";
import { safeNext } from "./safe-next";

const authClient = createAuthClient({ basePath: "/api/auth" });

function messageFor(status: number, fallback: string | undefined): string {
  // One message for a wrong email and a wrong password: no hint which part was wrong.
  if (status === 401) return "Wrong email or password.";
  if (status === 429) return "Too many sign-in attempts. Wait a minute, then try again.";
  if (status === 403) return fallback ?? "This account is disabled.";
  return "Sign-in failed. Try again.";
}

export function SignInForm({ next }: { next: string }) {
  const router = useRouter();
  const [error, setError] = useState<string | undefined>();
  const [pending, startTransition] = useTransition();

  // onSubmit, not a form action: React resets a form after its action, which would erase the email a
  // person typed whenever a sign-in is refused (and race anyone typing again while the answer arrives).
  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setError(undefined);
    startTransition(async () => {
      const { error: failed } = await authClient.signIn.email({
        email: String(form.get("email")),
        password: String(form.get("password")),
      });
      if (failed) {
        setError(messageFor(failed.status, failed.message));
        return;
      }
      // Checked again here: this is the navigation that would leave the site.
      router.replace(safeNext(next));
      router.refresh();
    });
  }

  return (
    <form className="flex flex-col gap-3" onSubmit={onSubmit}>
      <SignInEmailField />
      <Label>
        Password
        <Input name="password" type="password" autoComplete="current-password" required />
      </Label>
      {error && !pending && (
        <Alert tone="danger" role="alert">
          {error}
        </Alert>
      )}
      <Button type="submit" disabled={pending} className="w-full">
        {pending ? "Signing in…" : "Sign in"}
      </Button>
    </form>
  );
}
