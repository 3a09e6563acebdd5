"use client";

import { createAuthClient } from "better-auth/react";
import { useRouter } from "next/navigation";
import { SignInEmailField } from "@/components/account-fields";
import { useKeptFormAction } from "@/components/use-kept-form-action";
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
  // A kept form: a refused sign-in leaves the email typed (a form action would reset it, and race anyone typing
  // again while the answer arrives).
  const { state, pending, submit } = useKeptFormAction<{ error: string } | undefined>(
    async (_prev: { error: string } | undefined, form: FormData): Promise<{ error: string } | undefined> => {
      const { error: failed } = await authClient.signIn.email({
        email: String(form.get("email")),
        password: String(form.get("password")),
      });
      if (failed) return { error: messageFor(failed.status, failed.message) };
      // Checked again here: this is the navigation that would leave the site.
      router.replace(safeNext(next));
      router.refresh();
      return undefined;
    },
  );

  return (
    <form className="flex flex-col gap-3" onSubmit={submit}>
      <SignInEmailField />
      <Label>
        Password
        <Input name="password" type="password" autoComplete="current-password" required />
      </Label>
      {state && !pending && (
        <Alert tone="danger" role="alert">
          {state.error}
        </Alert>
      )}
      <Button type="submit" disabled={pending} className="w-full">
        {pending ? "Signing in…" : "Sign in"}
      </Button>
    </form>
  );
}
