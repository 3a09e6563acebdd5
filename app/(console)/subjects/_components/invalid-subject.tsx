/** What the customer pages show for an id or email that cannot be a subject (subjectFromParam's error). */
export function InvalidSubject({ error }: { error: string }) {
  return (
    <p
      role="alert"
      className="rounded-lg border border-destructive/40 bg-destructive/10 px-4 py-3 text-sm text-destructive"
    >
      {error}
    </p>
  );
}
