/** The password rules as lib/auth/users.ts enforces them; the numbers come from there as props. */
export function PasswordRules({ id, minLength, maxLength }: { id: string; minLength: number; maxLength: number }) {
  return (
    <p id={id} className="text-xs text-muted-foreground">
      {minLength} to {maxLength} characters, any characters (spaces too): a few unrelated words make a good one.
    </p>
  );
}
