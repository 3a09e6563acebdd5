/** The outcome line under a form: an error as an alert, or a confirmation. */
export function FormMessage({
  state,
  success,
}: {
  state: { ok: true } | { ok: false; error: string } | undefined;
  success: string;
}) {
  if (!state) return null;
  return state.ok ? (
    <div className="notice ok" role="status">
      {success}
    </div>
  ) : (
    <div className="notice error" role="alert">
      {state.error}
    </div>
  );
}
