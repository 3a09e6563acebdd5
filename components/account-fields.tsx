import type { ComponentProps } from "react";
import { Input, Label } from "./ui/input";

/** The email a person signs in with: the username a password manager pairs with the password. */
export function SignInEmailField() {
  return (
    <Label>
      Email
      <Input name="email" type="email" autoComplete="username" required autoFocus />
    </Label>
  );
}

/**
 * A password being chosen, held to the lengths lib/auth/users.ts enforces (passed in from there);
 * `rulesId` is the line that states the rules.
 */
export function NewPasswordInput({
  rules,
  rulesId,
  ...props
}: ComponentProps<"input"> & { rules: { minLength: number; maxLength: number }; rulesId?: string }) {
  return (
    <Input
      type="password"
      autoComplete="new-password"
      minLength={rules.minLength}
      maxLength={rules.maxLength}
      aria-describedby={rulesId}
      required
      {...props}
    />
  );
}
