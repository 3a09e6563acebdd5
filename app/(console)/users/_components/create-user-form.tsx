"use client";

import { NewPasswordInput } from "@/components/account-fields";
import { useKeptFormAction } from "@/components/use-kept-form-action";
import { FormMessage } from "@/components/form-message";
import { Button } from "@/components/ui/button";
import { Input, Label, NativeSelect } from "@/components/ui/input";
import { createUserAction } from "../actions";
import { PasswordRules } from "./password-rules";

export function CreateUserForm({
  roles,
  passwordRules,
}: {
  roles: readonly string[];
  passwordRules: { minLength: number; maxLength: number };
}) {
  const { state, dispatch, pending, submit } = useKeptFormAction(createUserAction, { resetOnSuccess: true });
  return (
    <form action={dispatch} onSubmit={submit} className="flex flex-col gap-3">
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-4">
        <Label>
          Email
          <Input name="email" type="email" autoComplete="off" required />
        </Label>
        <Label>
          Name
          <Input name="name" placeholder="optional" maxLength={100} autoComplete="off" />
        </Label>
        <Label>
          Role
          <NativeSelect name="role" defaultValue="support">
            {roles.map((r) => (
              <option key={r}>{r}</option>
            ))}
          </NativeSelect>
        </Label>
        <Label>
          Initial password
          <NewPasswordInput name="password" rules={passwordRules} rulesId="new-user-password-rules" />
        </Label>
      </div>
      <div className="flex flex-wrap items-center justify-between gap-3">
        <PasswordRules id="new-user-password-rules" {...passwordRules} />
        <Button type="submit" disabled={pending}>
          {pending ? "Adding…" : "Add user"}
        </Button>
      </div>
      <FormMessage state={state} success="User added." />
    </form>
  );
}
